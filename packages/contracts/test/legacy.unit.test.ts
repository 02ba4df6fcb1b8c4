import { describe, expect, it } from "vitest";
import {
  domainVerificationRecord,
  LegacyAccountResponse,
  LegacyAccountUpdateBody,
  LegacyAssignParams,
  LegacyCampaignList,
  LegacyCampaignResponse,
  LegacyCampaignUpdateBody,
  LegacyChannelAddBody,
  LegacyChannelList,
  LegacyChannelUpdateBody,
  LegacyDomainAddBody,
  LegacyDomainList,
  LegacyDomainUpdateBody,
  LegacyIdParams,
  LegacyListQuery,
  LegacyOverlayDetailList,
  toLegacyDateTime,
} from "../src/index.ts";
import { LINK_ID } from "./samples.ts";

const page = { result: 1, perpage: 10, currentpage: 1, nextpage: null, maxpage: 1 };

describe("legacy API shapes", () => {
  it("accepts the account response", () => {
    const body = {
      error: 0,
      data: {
        id: 1,
        email: "owner@example.com",
        username: "owner",
        avatar: "https://kurz.example.com/avatar/1.png",
        status: "pro",
        expires: "2027-01-01 00:00:00",
        registered: "2025-06-01 08:30:00",
      },
    };
    expect(LegacyAccountResponse.parse(body)).toEqual(body);
    expect(
      LegacyAccountResponse.safeParse({ ...body, data: { ...body.data, registered: "2025-06-01T08:30:00Z" } })
        .success,
    ).toBe(false);
  });

  it("formats dates as YYYY-MM-DD HH:MM:SS", () => {
    expect(toLegacyDateTime(new Date("2026-01-31T12:34:56.789Z"))).toBe("2026-01-31 12:34:56");
  });

  it("needs email or password on account update", () => {
    expect(LegacyAccountUpdateBody.safeParse({}).success).toBe(false);
    expect(LegacyAccountUpdateBody.safeParse({ email: "new@example.com" }).success).toBe(true);
    expect(LegacyAccountUpdateBody.safeParse({ password: "long enough" }).success).toBe(true);
    expect(LegacyAccountUpdateBody.safeParse({ email: "not-an-email" }).success).toBe(false);
  });

  it("accepts the list responses of domains, overlays, campaigns and channels", () => {
    const domains = {
      error: "0",
      data: {
        ...page,
        domains: [
          {
            id: 1,
            domain: "https://go.example.com",
            redirectroot: "https://example.com",
            redirect404: null,
            status: "verified",
            verified_at: "2026-01-01 10:00:00",
            last_checked_at: "2026-01-01 10:00:00",
            verification: domainVerificationRecord("go.example.com", "0123456789abcdef0123456789abcdef"),
            links: 3,
          },
        ],
      },
    };
    expect(LegacyDomainList.parse(domains)).toEqual(domains);
    const overlay = {
      id: 2,
      type: "message",
      name: "Promo",
      text: "Spring sale: 20% off",
      button_label: "Shop now",
      button_url: "https://example.com/shop",
      fields: [],
      bg_color: "#FFFFFF",
      text_color: "#111111",
      button_color: "#2563EB",
      position: "bottom",
      date: "2026-01-01 10:00:00",
    };
    const cta = { error: "0", data: { ...page, cta: [overlay] } };
    expect(LegacyOverlayDetailList.parse(cta)).toEqual(cta);
    const campaigns = {
      error: "0",
      data: {
        ...page,
        campaigns: [
          {
            id: 3,
            name: "Spring",
            public: true,
            rotator: "https://kurz.example.com/r/spring",
            list: "https://kurz.example.com/c/3",
          },
          { id: 4, name: "Quiet", public: false, rotator: false, list: "https://kurz.example.com/c/4" },
        ],
      },
    };
    expect(LegacyCampaignList.parse(campaigns)).toEqual(campaigns);
    const channels = {
      error: "0",
      data: {
        ...page,
        channels: [{ id: 5, name: "Social", description: "", color: "#1A1410", starred: true }],
      },
    };
    expect(LegacyChannelList.parse(channels)).toEqual(channels);
  });

  it("answers campaign create/update with the name in domain", () => {
    const body = {
      error: 0,
      id: 3,
      domain: "Spring",
      public: true,
      rotator: false,
      list: "https://kurz.example.com/c/3",
    };
    expect(LegacyCampaignResponse.parse(body)).toEqual(body);
    expect(LegacyCampaignUpdateBody.safeParse({ slug: "spring" }).success).toBe(false);
    expect(LegacyCampaignUpdateBody.safeParse({ name: "Spring", slug: "-bad" }).success).toBe(false);
  });

  it("needs a member on domain and channel updates; null clears a domain redirect", () => {
    expect(LegacyDomainUpdateBody.safeParse({}).success).toBe(false);
    expect(LegacyDomainUpdateBody.parse({ redirectroot: null })).toEqual({ redirectroot: null });
    expect(LegacyChannelUpdateBody.safeParse({}).success).toBe(false);
    expect(LegacyChannelUpdateBody.safeParse({ starred: false }).success).toBe(true);
    expect(LegacyChannelAddBody.safeParse({ name: "A", color: "#abcdef" }).success).toBe(true);
    expect(LegacyChannelAddBody.safeParse({ name: "A", color: "abcdef" }).success).toBe(false);
    expect(LegacyCampaignUpdateBody.parse({ name: "A", slug: null })).toEqual({ name: "A", slug: null });
  });

  it("takes a branded domain as scheme and DNS name only", () => {
    expect(LegacyDomainAddBody.safeParse({ domain: "https://go.example.com" }).success).toBe(true);
    expect(LegacyDomainAddBody.safeParse({ domain: "https://Go.Example.COM.:443" }).success).toBe(true);
    for (const domain of [
      "go.example.com",
      "ftp://go.example.com",
      "https://go.example.com/path",
      "https://go.example.com/?a=1",
      "https://go.example.com:8080",
      "https://127.0.0.1",
      "https://[::1]",
      "https://localhost",
      "https://intranet",
    ]) {
      expect(LegacyDomainAddBody.safeParse({ domain }).success, domain).toBe(false);
    }
  });

  it("parses string path ids and list paging", () => {
    expect(LegacyIdParams.parse({ id: "42" })).toEqual({ id: 42 });
    for (const id of ["0", "-1", "4.2", "x", "042"])
      expect(LegacyIdParams.safeParse({ id }).success, id).toBe(false);
    expect(LegacyAssignParams.parse({ campaignid: "3", linkid: LINK_ID })).toEqual({
      campaignid: 3,
      linkid: LINK_ID,
    });
    expect(LegacyIdParams.safeParse({ id: "2147483648" }).success).toBe(false);
    expect(LegacyIdParams.parse({ id: "2147483647" })).toEqual({ id: 2147483647 });
    expect(LegacyListQuery.parse({})).toEqual({ limit: 10, page: 1 });
    expect(LegacyListQuery.safeParse({ limit: "101" }).success).toBe(false);
  });
});
