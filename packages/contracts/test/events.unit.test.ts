import { describe, expect, it } from "vitest";
import {
  CLICK_BATCH_MAX,
  CLICK_PARTITION_KEYS,
  ClickBatch,
  ClickBatchMessage,
  ClickEvent,
  ClickTotals,
  clickPartitionKey,
  decodeClickBatch,
  decodeRedirectRecord,
  encodeClickBatch,
  encodeRedirectRecord,
  LinkEvent,
  RedirectRecord,
  redirectKey,
  TOPIC_SCHEMAS,
  TOPICS,
} from "../src/index.ts";
import { ACCOUNT_ID, LINK_ID } from "./samples.ts";

const click = {
  v: 1,
  click_id: "01890a5d-ac96-774b-bcce-b302099a8057",
  link_id: LINK_ID,
  account_id: ACCOUNT_ID,
  short_code: "my-link",
  ts: "2026-01-31T12:00:00.123Z",
  ip: "203.0.113.7",
  user_agent: "Mozilla/5.0",
  referrer: null,
  host: "kurz.example.com",
};

const record = {
  id: LINK_ID,
  account_id: ACCOUNT_ID,
  short_code: "my-link",
  original_url: "https://example.com",
  title: "Example",
  is_active: true,
  expires_at: null,
  has_password: true,
};

describe("click events", () => {
  it("accepts a click and requires a UUID v7 click id", () => {
    expect(ClickEvent.parse(click)).toEqual(click);
    expect(ClickEvent.safeParse({ ...click, click_id: LINK_ID }).success).toBe(false);
    expect(ClickEvent.safeParse({ ...click, v: 2 }).success).toBe(false);
  });

  it("strips fields a newer publisher adds, so old consumers keep working", () => {
    expect(ClickEvent.parse({ ...click, country: "DE" })).toEqual(click);
  });

  it("batches 1..CLICK_BATCH_MAX clicks", () => {
    expect(ClickBatch.parse({ v: 1, clicks: [click] }).clicks).toHaveLength(1);
    expect(ClickBatch.safeParse({ v: 1, clicks: [] }).success).toBe(false);
    expect(ClickBatch.safeParse({ v: 1, clicks: Array(CLICK_BATCH_MAX + 1).fill(click) }).success).toBe(
      false,
    );
  });

  it("encodes v2 batches as tuples that decode to the same clicks, a third smaller", () => {
    const one = ClickEvent.parse(click);
    const other = { ...one, user_agent: null, referrer: "https://from.example/", ip: null };
    const v2 = encodeClickBatch([one, other]);
    expect(ClickBatchMessage.parse(JSON.parse(JSON.stringify(v2)))).toEqual(v2);
    expect(decodeClickBatch(JSON.parse(JSON.stringify(v2)))).toEqual([one, other]);
    expect(decodeClickBatch({ v: 1, clicks: [one] })).toEqual([one]);
    const v1Bytes = JSON.stringify({ v: 1, clicks: [one, other] }).length;
    expect(JSON.stringify(v2).length).toBeLessThan(v1Bytes * 0.8);
  });

  it("refuses v2 tuples of the wrong length or with invalid members, and unknown versions", () => {
    const [tuple] = encodeClickBatch([ClickEvent.parse(click)]).clicks;
    expect(decodeClickBatch({ v: 2, clicks: [tuple!.slice(0, 8)] })).toBeNull();
    expect(decodeClickBatch({ v: 2, clicks: [[LINK_ID, ...tuple!.slice(1)]] })).toBeNull();
    expect(decodeClickBatch({ v: 2, clicks: [] })).toBeNull();
    expect(decodeClickBatch({ v: 3, clicks: [tuple] })).toBeNull();
    expect(decodeClickBatch("not a batch")).toBeNull();
  });

  it("decodes a v2 batch exactly as ClickBatchMessage judges it, member by member", () => {
    const [tuple] = encodeClickBatch([ClickEvent.parse(click)]).clicks;
    const base = [...tuple!] as unknown[];
    const variants: unknown[][] = [base, [...base, "rule:2"], [...base, "split:12"], [...base, undefined]];
    const bad: unknown[] = [
      null,
      undefined,
      "",
      1,
      {},
      [],
      "x".repeat(65),
      "x".repeat(1025),
      "x".repeat(2049),
      "x".repeat(256),
      LINK_ID,
      LINK_ID.toUpperCase(),
      "00000000-0000-0000-0000-000000000000",
      "01890a5d-ac96-774b-bcce-b302099a805",
      "2026-01-31T12:00:00Z",
      "2026-02-29T12:00:00.000Z",
      "2028-02-29T12:00:00.000Z",
      "2026-01-31T12:00:00.123+01:00",
      "rule:123",
      "default",
      "broken",
      "DEFAULT",
    ];
    for (let i = 0; i < 10; i++) {
      for (const value of bad) {
        const t = [...base];
        t[i] = value;
        variants.push(t);
      }
    }
    variants.push(base.slice(0, 8), [...base, "ios", "x"]);
    let accepted = 0;
    for (const t of variants) {
      for (const clicks of [[t], [base, t]]) {
        const parsed = ClickBatchMessage.safeParse({ v: 2, clicks });
        const decoded = decodeClickBatch({ v: 2, clicks });
        expect(decoded === null, JSON.stringify(t)).toBe(!parsed.success);
        if (decoded !== null) {
          accepted++;
          const expected = (parsed.data!.clicks as unknown[][]).map((m) => ({
            v: 1,
            ...Object.fromEntries(
              [
                "click_id",
                "link_id",
                "account_id",
                "short_code",
                "ts",
                "ip",
                "user_agent",
                "referrer",
                "host",
              ].map((k, j) => [k, m[j]]),
            ),
            ...(m[9] !== undefined ? { destination: m[9] } : {}),
          }));
          expect(decoded).toStrictEqual(expected);
        }
      }
    }
    expect(accepted).toBeGreaterThan(20);
    expect(decodeClickBatch({ v: 2, clicks: Array(CLICK_BATCH_MAX + 1).fill(base) })).toBeNull();
    expect(decodeClickBatch({ v: 2, clicks: Array(CLICK_BATCH_MAX).fill(base) })).toHaveLength(
      CLICK_BATCH_MAX,
    );
  });

  it("derives a stable partition key from the link id within a bounded key space", () => {
    expect(clickPartitionKey(LINK_ID)).toBe(clickPartitionKey(LINK_ID));
    const keys = new Set<string>();
    for (let i = 0; i < 5000; i++)
      keys.add(clickPartitionKey(`${i.toString(16).padStart(8, "0")}-d9cb-469f-a165-70867728950e`));
    expect(keys.size).toBe(CLICK_PARTITION_KEYS);
    for (const key of keys) expect(key).toMatch(/^c\d{1,2}$/);
  });
});

describe("link events", () => {
  const base = {
    v: 1,
    link_id: LINK_ID,
    account_id: ACCOUNT_ID,
    short_code: "my-link",
    occurred_at: "2026-01-31T12:00:00.000Z",
  };

  it("discriminates on type and carries the record on create and update", () => {
    expect(LinkEvent.parse({ ...base, type: "link.created", link: record }).type).toBe("link.created");
    expect(LinkEvent.parse({ ...base, type: "link.updated", link: record }).type).toBe("link.updated");
    expect(LinkEvent.parse({ ...base, type: "link.deleted" }).type).toBe("link.deleted");
    expect(LinkEvent.safeParse({ ...base, type: "link.created" }).success).toBe(false);
    expect(LinkEvent.safeParse({ ...base, type: "link.renamed", link: record }).success).toBe(false);
  });

  it("never carries a password hash", () => {
    const parsed = LinkEvent.parse({
      ...base,
      type: "link.updated",
      link: { ...record, password_hash: "$argon2id$..." },
    });
    expect(parsed.type === "link.updated" && "password_hash" in parsed.link).toBe(false);
  });

  it("reports absolute click totals", () => {
    const totals = { v: 1, totals: [{ link_id: LINK_ID, account_id: ACCOUNT_ID, clicks: 12 }] };
    expect(ClickTotals.parse(totals)).toEqual(totals);
    expect(
      ClickTotals.safeParse({ v: 1, totals: [{ link_id: LINK_ID, account_id: ACCOUNT_ID, clicks: -1 }] })
        .success,
    ).toBe(false);
  });

  it("names each topic and its message schema", () => {
    expect(TOPICS).toEqual({ clicks: "clicks", links: "links", clickTotals: "click-totals" });
    expect(TOPIC_SCHEMAS[TOPICS.clicks]).toBe(ClickBatchMessage);
    expect(TOPIC_SCHEMAS[TOPICS.links]).toBe(LinkEvent);
    expect(TOPIC_SCHEMAS[TOPICS.clickTotals]).toBe(ClickTotals);
  });
});

describe("redirect record", () => {
  const redirect = {
    id: LINK_ID,
    account_id: ACCOUNT_ID,
    url: "https://example.com",
    active: true,
    expires_at: 1_800_000_000_000,
    password_hash: null,
  };

  it("round-trips through its JSON encoding under link:{code}", () => {
    expect(redirectKey("my-link")).toBe("link:my-link");
    expect(decodeRedirectRecord(encodeRedirectRecord(redirect))).toEqual(redirect);
  });

  it("refuses malformed or foreign records", () => {
    expect(() => decodeRedirectRecord("{")).toThrow();
    expect(() => decodeRedirectRecord(JSON.stringify({ ...redirect, expires_at: "2027-01-01" }))).toThrow();
    expect(RedirectRecord.safeParse({ ...redirect, active: undefined }).success).toBe(false);
  });
});
