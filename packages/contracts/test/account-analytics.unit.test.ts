import { describe, expect, it } from "vitest";
import {
  Account,
  AnalyticsQuery,
  AnalyticsSummary,
  API_KEY_PATTERN,
  CreateApiKeyBody,
  CreatedApiKey,
  LinkAnalytics,
  PublicLinkAnalytics,
  SHARED_FIELD_SECTIONS,
  Usage,
} from "../src/index.ts";
import { account, apiKey, KEY_ID, LINK_ID } from "./samples.ts";

describe("account", () => {
  it("accepts the documented account and usage objects", () => {
    expect(Account.parse(account)).toEqual(account);
    expect(Account.parse({ ...account, default_expiry_hours: 72 }).default_expiry_hours).toBe(72);
    const usage = {
      current_key: { id: KEY_ID, name: "CI", rate_limit_per_minute: 60, rate_limit_per_hour: 1000 },
      active_keys: 1,
      keys: [
        apiKey,
        { ...apiKey, last_used_at: "2026-02-01T00:00:00.000Z", expires_at: "2027-01-01T00:00:00.000Z" },
      ],
    };
    expect(Usage.parse(usage)).toEqual(usage);
  });

  it("validates key creation: name 1..100 characters, optional zoned expiry", () => {
    expect(CreateApiKeyBody.parse({ name: " deploy bot " })).toEqual({ name: "deploy bot" });
    expect(CreateApiKeyBody.safeParse({ name: "" }).success).toBe(false);
    expect(CreateApiKeyBody.safeParse({ name: "x".repeat(101) }).success).toBe(false);
    expect(
      CreateApiKeyBody.safeParse({ name: "x".repeat(100), expires_at: "2027-01-01T00:00:00Z" }).success,
    ).toBe(true);
    // The same expiry rule as links': a date is midnight UTC, a local time without a zone is refused.
    expect(CreateApiKeyBody.parse({ name: "x", expires_at: "2027-01-01" }).expires_at).toBe(
      "2027-01-01T00:00:00.000Z",
    );
    expect(CreateApiKeyBody.safeParse({ name: "x", expires_at: "2027-01-01T00:00:00" }).success).toBe(false);
  });

  it("returns the full key once, in the kurz_live_ format", () => {
    const key = `kurz_live_${"aZ09".repeat(8)}`;
    expect(API_KEY_PATTERN.test(key)).toBe(true);
    expect(CreatedApiKey.parse({ ...apiKey, key }).key).toBe(key);
    expect(CreatedApiKey.safeParse({ ...apiKey, key: "kurz_live_short" }).success).toBe(false);
  });
});

describe("analytics", () => {
  const analytics = {
    link_id: LINK_ID,
    short_code: "my-link",
    total_clicks: 5,
    time_series: [
      { date: "2026-01-30", count: 2 },
      { date: "2026-01-31", count: 3 },
    ],
    referrers: [
      { referrer: null, count: 3 },
      { referrer: "news.example.org", count: 2 },
    ],
    countries: [{ country: "DE", count: 5 }],
    cities: [{ city: "Berlin", country: "DE", count: 5 }],
    devices: [
      { device_type: "mobile", count: 4 },
      { device_type: "desktop", count: 1 },
    ],
    browsers: [{ browser: "Firefox", count: 5 }],
    os: [{ os: "Android", count: 4 }],
  };

  it("accepts the documented link analytics, with or without the extra counters", () => {
    expect(LinkAnalytics.parse(analytics)).toEqual(analytics);
    expect(LinkAnalytics.parse({ ...analytics, bot_clicks: 7, unique_visitors: 4 })).toMatchObject({
      bot_clicks: 7,
    });
  });

  it("takes destinations as a Kurz extension, and never shows them on public analytics", () => {
    const destinations = [
      { destination: "default", count: 3 },
      { destination: "rule:2", count: 1 },
      { destination: "split:1", count: 1 },
    ];
    expect(LinkAnalytics.parse({ ...analytics, destinations })).toEqual({ ...analytics, destinations });
    expect(
      LinkAnalytics.safeParse({ ...analytics, destinations: [{ destination: "rule:x", count: 1 }] }).success,
    ).toBe(false);
    expect(Object.keys(PublicLinkAnalytics.shape)).not.toContain("destinations");
  });

  it("rejects values outside the documented vocabulary", () => {
    expect(
      LinkAnalytics.safeParse({ ...analytics, devices: [{ device_type: "tv", count: 1 }] }).success,
    ).toBe(false);
    expect(
      LinkAnalytics.safeParse({ ...analytics, countries: [{ country: "Germany", count: 1 }] }).success,
    ).toBe(false);
    expect(
      LinkAnalytics.safeParse({ ...analytics, time_series: [{ date: "2026-1-3", count: 1 }] }).success,
    ).toBe(false);
    const eleven = Array.from({ length: 11 }, (_, i) => ({ browser: `b${i}`, count: 1 }));
    expect(LinkAnalytics.safeParse({ ...analytics, browsers: eleven }).success).toBe(false);
  });

  it("accepts the documented summary with at most 5 top links", () => {
    const top = { id: LINK_ID, short_code: "a1", original_url: "https://e.com", title: "E", clicks_count: 9 };
    const summary = {
      total_links: 3,
      active_links: 2,
      total_clicks: 9,
      clicks_over_time: [{ date: "2026-01-31", count: 9 }],
      top_links: [top],
    };
    expect(AnalyticsSummary.parse(summary)).toEqual(summary);
    expect(AnalyticsSummary.safeParse({ ...summary, top_links: Array(6).fill(top) }).success).toBe(false);
  });

  it("takes dates or zoned datetimes as the range, start not after end", () => {
    expect(AnalyticsQuery.parse({})).toEqual({});
    expect(AnalyticsQuery.safeParse({ start: "2026-01-01", end: "2026-01-31" }).success).toBe(true);
    expect(
      AnalyticsQuery.safeParse({ start: "2026-01-01T00:00:00Z", end: "2026-01-01T00:00:00+00:00" }).success,
    ).toBe(true);
    expect(AnalyticsQuery.safeParse({ start: "2026-01-01" }).success).toBe(true);
    expect(AnalyticsQuery.safeParse({ start: "2026-02-01", end: "2026-01-01" }).success).toBe(false);
    // A bare end date covers its whole day, so a start later on that day is still before the end.
    expect(AnalyticsQuery.safeParse({ start: "2026-01-01T23:30:00Z", end: "2026-01-01" }).success).toBe(true);
    expect(AnalyticsQuery.safeParse({ start: "2026-01-02T00:00:00Z", end: "2026-01-01" }).success).toBe(
      false,
    );
    expect(AnalyticsQuery.safeParse({ start: "yesterday" }).success).toBe(false);
    expect(AnalyticsQuery.safeParse({ end: "2026-13-01" }).success).toBe(false);
  });

  it("takes interval=hour only with both ends at most 7 days apart, and hourly series as {hour, count}", () => {
    const hour = (start: string, end?: string) =>
      AnalyticsQuery.safeParse({ start, end, interval: "hour" }).success;
    expect(hour("2026-01-01T10:30:00Z", "2026-01-08T10:30:00Z")).toBe(true);
    expect(hour("2026-01-01", "2026-01-07")).toBe(true);
    // A bare end date includes its whole day: 8 days.
    expect(hour("2026-01-01", "2026-01-08")).toBe(false);
    expect(hour("2026-01-01T10:30:00Z", "2026-01-08T10:30:00.001Z")).toBe(false);
    expect(hour("2026-01-01")).toBe(false);
    expect(AnalyticsQuery.safeParse({ interval: "day" }).success).toBe(true);
    expect(
      AnalyticsQuery.safeParse({ start: "2026-01-01", end: "2026-12-31", interval: "day" }).success,
    ).toBe(true);
    expect(AnalyticsQuery.safeParse({ interval: "minute" }).success).toBe(false);
    const series = [{ hour: "2026-01-31T14:00:00Z", count: 3 }];
    expect(LinkAnalytics.shape.time_series.parse(series)).toEqual(series);
    expect(LinkAnalytics.shape.time_series.safeParse([{ hour: "2026-01-31", count: 3 }]).success).toBe(false);
  });

  it("lets public analytics carry only some sections", () => {
    const onlyOverview = {
      short_code: "my-link",
      shared_fields: ["overview"],
      total_clicks: 5,
      time_series: [],
    };
    expect(PublicLinkAnalytics.parse(onlyOverview)).toEqual(onlyOverview);
    expect(Object.keys(SHARED_FIELD_SECTIONS).sort()).toEqual([
      "browsers",
      "devices",
      "locations",
      "overview",
      "referrers",
    ]);
  });
});
