// A broken link's record through the redirect's real parts (smart-bed.ts, docs/health.md): `b` sends
// every visitor there with a 302 (whatever REDIRECT_STATUS says) and tags the GET's click `broken`,
// before the password form, a smart link's rules and its click limit; a HEAD counts nothing, a POST is
// refused; a campaign rotator that picks the link goes there too; a record without `b` (a healthy link,
// or one written before `b` existed) redirects as before. Every test passes its own clock.
import { type ClickEvent, type RedirectRecord, rotatorKey } from "@kurz/contracts";
import { compileSmartLink } from "@kurz/link-rules";
import { waitFor } from "@kurz/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redirectRecord } from "./support/records.ts";
import { type SmartBed, startSmartBed } from "./support/smart-bed.ts";

const UA =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

let n = 0;
const record = (extra: Partial<RedirectRecord> = {}): RedirectRecord =>
  redirectRecord("https://example.com/page", {
    id: `0190a1b2-0000-7000-8000-${String(7000 + ++n).padStart(12, "0")}`,
    ...extra,
  });

const visit = async (bed: SmartBed, path: string, method = "GET") => {
  const res = await fetch(`${bed.url}${path}`, { method, redirect: "manual", headers: { "user-agent": UA } });
  await res.body?.cancel();
  return { status: res.status, location: res.headers.get("location") };
};

const clicksOf = (bed: SmartBed, linkId: string, count: number): Promise<ClickEvent[]> =>
  waitFor(
    () => {
      const list = bed.clicks.events.filter((e) => e.link_id === linkId);
      return list.length === count ? list : undefined;
    },
    { timeoutMs: 10_000, description: `${count} clicks of ${linkId}` },
  );

describe("a broken link's record", () => {
  let bed: SmartBed;
  beforeAll(async () => {
    bed = await startSmartBed({ name: "broken-links" });
  });
  afterAll(() => bed?.stop());

  it("sends GET and HEAD to broken_url with a 302, counts the GET as `broken`, refuses a POST", async () => {
    const broken = record({ b: "https://status.example.com/sorry" });
    await bed.seed("brk1", broken);
    expect(await visit(bed, "/brk1")).toEqual({ status: 302, location: "https://status.example.com/sorry" });
    expect(await visit(bed, "/brk1", "HEAD")).toEqual({
      status: 302,
      location: "https://status.example.com/sorry",
    });
    expect((await visit(bed, "/brk1", "POST")).status).toBe(405);
    const clicks = await clicksOf(bed, broken.id, 1);
    expect(clicks[0]).toMatchObject({ short_code: "brk1", destination: "broken" });
  });

  it("comes before the password form, the rules and the click limit; an expired link stays expired", async () => {
    await bed.seed("brk2", record({ b: "https://status.example.com/a", password_hash: "$argon2id$x" }));
    expect((await visit(bed, "/brk2")).location).toBe("https://status.example.com/a");
    const s = compileSmartLink(
      { rules: [{ when: { device: ["desktop"] }, url: "https://example.com/desk" }], max_clicks: 1 },
      { imageUrl: (id) => id },
    );
    const smart = record({ b: "https://status.example.com/b", ...(s ? { s } : {}) });
    await bed.seed("brk3", smart);
    for (let i = 0; i < 3; i++) {
      expect((await visit(bed, "/brk3")).location).toBe("https://status.example.com/b");
    }
    await bed.seed("brk4", record({ b: "https://status.example.com/c", expires_at: bed.clock.now - 1 }));
    expect((await visit(bed, "/brk4")).status).toBe(410);
  });

  it("a rotator that picks the link goes to broken_url; a record without `b` redirects as before", async () => {
    const broken = record({ b: "https://status.example.com/rot" });
    await bed.seed("brk5", broken);
    await bed.redis.set(
      rotatorKey("broken-campaign"),
      JSON.stringify({
        campaign_id: 9,
        account_id: broken.account_id,
        links: [{ id: broken.id, short_code: "brk5", weight: 1 }],
      }),
    );
    expect((await visit(bed, "/r/broken-campaign")).location).toBe("https://status.example.com/rot");
    await bed.seed("brk6", record());
    expect(await visit(bed, "/brk6")).toEqual({ status: 302, location: "https://example.com/page" });
  });
});
