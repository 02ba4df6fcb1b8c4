// Older API: campaigns (list, add, update, delete, assign), their rotator records for the redirect
// service, the internal rotator resolve, the public list page at /c/<public id>, and tenant isolation.
import { isRecordTombstone, RotatorRecord, rotatorKey } from "@kurz/contracts";
import { internalHeaders } from "@kurz/service-kit";
import { waitFor } from "@kurz/testing";
import { describe, expect, it } from "vitest";
import {
  createLink,
  expectLegacyError,
  expectLegacyList,
  expectLegacyMessage,
  useLegacyTenants,
} from "./legacy-helpers.ts";

let seq = 0;
/** Slugs are unique across the service. */
/** A campaign's public page: its random public id (32 hex digits), never its sequential id. */
const publicListUrl = (origin: string) => new RegExp(`^${origin.replace(/[.]/g, "\\.")}/c/[0-9a-f]{32}$`);
const uniqueSlug = () => `spring-${process.pid}-${Date.now().toString(36)}-${++seq}`;

describe("legacy campaigns", () => {
  const { bed, call, other, owner, stranger, newCaller } = useLegacyTenants("camp", {
    // The outbox poll is out of reach here: the relay publishes a write's events only because the
    // write woke it (the campaign analytics test below depends on that, and polls analytics).
    OUTBOX_POLL_MS: "600000",
    RATE_LIMIT_PER_MINUTE: "100000",
    RATE_LIMIT_PER_HOUR: "1000000",
  });

  const rotator = async (slug: string) => {
    const json = await bed.redis.get(rotatorKey(slug));
    // A removed rotator's tombstone (decision 0052) is no rotator, as the redirect reads it.
    return json === null || isRecordTombstone(JSON.parse(json))
      ? null
      : RotatorRecord.parse(JSON.parse(json));
  };

  it("creates a campaign with a rotator and answers the original product's sample fields", async () => {
    const slug = uniqueSlug();
    const res = await call("POST", "/campaign/add", { name: "Spring sale", slug, public: true });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["domain", "error", "id", "list", "public", "rotator"]);
    expect(res.body).toEqual({
      error: 0,
      id: expect.any(Number),
      domain: "Spring sale",
      public: true,
      rotator: `${bed.stack.origin}/r/${slug}`,
      list: expect.stringMatching(publicListUrl(bed.stack.origin)),
    });
    expect(Number.isInteger(res.body.id)).toBe(true);
    expect(await rotator(slug)).toEqual({
      campaign_id: res.body.id,
      account_id: expect.any(String),
      links: [],
      v: expect.any(Number), // decision 0052
    });
  });

  it("creates a campaign without a slug: rotator false, private by default", async () => {
    const res = await call("POST", "/campaign/add", { name: "Quiet" });
    expect(res.body).toEqual({
      error: 0,
      id: expect.any(Number),
      domain: "Quiet",
      public: false,
      rotator: false,
      list: expect.stringMatching(publicListUrl(bed.stack.origin)),
    });
    const bare = await call("POST", "/campaign/add", {});
    expect(bare.status).toBe(200);
    expect(bare.body).toMatchObject({ domain: "Untitled campaign", public: false, rotator: false });
  });

  it("lists campaigns with the name in name", async () => {
    const fresh = await newCaller("camp-list");
    const slug = uniqueSlug();
    const a = (await fresh("POST", "/campaign/add", { name: "First", slug, public: true })).body;
    const b = (await fresh("POST", "/campaign/add", { name: "Second" })).body;
    const list = expectLegacyList(await fresh("GET", "/campaigns"), "campaigns");
    expect(list).toMatchObject({ result: 2, perpage: 10, currentpage: 1, nextpage: null, maxpage: 1 });
    expect(list.campaigns).toEqual([
      { id: b.id, name: "Second", public: false, rotator: false, list: b.list },
      {
        id: a.id,
        name: "First",
        public: true,
        rotator: `${bed.stack.origin}/r/${slug}`,
        list: a.list,
      },
    ]);
    const paged = expectLegacyList(await fresh("GET", "/campaigns?limit=1&page=2"), "campaigns");
    expect(paged).toMatchObject({ result: 2, perpage: 1, currentpage: 2, nextpage: null, maxpage: 2 });
    expect(paged.campaigns.map((c: { id: number }) => c.id)).toEqual([a.id]);
    expectLegacyError(await fresh("GET", "/campaigns?limit=101"), 400);
  });

  it("rejects bad campaign input with error 1 and a taken slug with 409", async () => {
    for (const body of [
      { slug: "-bad" },
      { slug: "ab" },
      { slug: "has space" },
      { name: "" },
      { name: "x".repeat(101) },
      { public: "yes" },
    ]) {
      expectLegacyError(await call("POST", "/campaign/add", body), 400);
    }
    const slug = uniqueSlug();
    expect((await call("POST", "/campaign/add", { slug })).status).toBe(200);
    expectLegacyError(await other("POST", "/campaign/add", { name: "Mine", slug }), 409, /already taken/);
  });

  it("updates name, slug and access; null removes the rotator", async () => {
    const slug = uniqueSlug();
    const { id } = (await call("POST", "/campaign/add", { name: "Before", slug })).body;
    const link = await createLink(bed.stack, owner().api_key, "https://example.com/u1");
    expectLegacyMessage(await call("POST", `/campaign/${id}/assign/${link.id}`));

    const renamed = uniqueSlug();
    const res = await call("PUT", `/campaign/${id}/update`, { name: "After", slug: renamed, public: true });
    expect(res.body).toEqual({
      error: 0,
      id,
      domain: "After",
      public: true,
      rotator: `${bed.stack.origin}/r/${renamed}`,
      list: expect.stringMatching(publicListUrl(bed.stack.origin)),
    });
    expect(await rotator(slug)).toBeNull();
    expect((await rotator(renamed))?.links).toEqual([
      { id: link.id, short_code: link.short_code, weight: 1 },
    ]);

    // Omitted members keep their values.
    const kept = await call("PUT", `/campaign/${id}/update`, { name: "Kept" });
    expect(kept.body).toMatchObject({
      domain: "Kept",
      public: true,
      rotator: `${bed.stack.origin}/r/${renamed}`,
    });

    const cleared = await call("PUT", `/campaign/${id}/update`, { name: "No rotator", slug: null });
    expect(cleared.body).toMatchObject({ rotator: false });
    expect(await rotator(renamed)).toBeNull();

    expectLegacyError(await call("PUT", `/campaign/${id}/update`, { slug: uniqueSlug() }), 400, /name/);
    expectLegacyError(await call("PUT", `/campaign/${id}/update`, {}), 400);
    const taken = uniqueSlug();
    await other("POST", "/campaign/add", { slug: taken });
    expectLegacyError(await call("PUT", `/campaign/${id}/update`, { name: "X", slug: taken }), 409);
    const list = expectLegacyList(await call("GET", "/campaigns?limit=100"), "campaigns");
    expect(list.campaigns.find((c: { id: number }) => c.id === id)).toMatchObject({ name: "No rotator" });
  });

  it("assigns links in order, idempotently, and keeps the rotator record in step", async () => {
    const slug = uniqueSlug();
    const { id } = (await call("POST", "/campaign/add", { name: "Rotation", slug })).body;
    const l1 = await createLink(bed.stack, owner().api_key, "https://example.com/1");
    const l2 = await createLink(bed.stack, owner().api_key, "https://example.com/2");
    expectLegacyMessage(await call("POST", `/campaign/${id}/assign/${l2.id}`), /added/);
    expectLegacyMessage(await call("POST", `/campaign/${id}/assign/${l1.id}`), /added/);
    expectLegacyMessage(await call("POST", `/campaign/${id}/assign/${l2.id}`), /already/);
    expect((await rotator(slug))?.links).toEqual([
      { id: l2.id, short_code: l2.short_code, weight: 1 },
      { id: l1.id, short_code: l1.short_code, weight: 1 },
    ]);
  });

  it("drops a deleted v1 link from its campaigns' rotator record at once", async () => {
    const slug = uniqueSlug();
    const { id } = (await call("POST", "/campaign/add", { name: "Shrinking", slug })).body;
    const keep = await createLink(bed.stack, owner().api_key, "https://example.com/keep");
    const gone = await createLink(bed.stack, owner().api_key, "https://example.com/gone");
    await call("POST", `/campaign/${id}/assign/${keep.id}`);
    await call("POST", `/campaign/${id}/assign/${gone.id}`);
    expect((await rotator(slug))?.links).toHaveLength(2);
    const del = await fetch(`${bed.stack.origin}/api/v1/links/${gone.id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${owner().api_key}` },
    });
    expect(del.status).toBe(200);
    expect((await rotator(slug))?.links).toEqual([{ id: keep.id, short_code: keep.short_code, weight: 1 }]);
  });

  it("tells analytics of a campaign from its create on, each change woken out at once", async () => {
    const analytics = async (key: string, id: number) => {
      const res = await fetch(`${bed.stack.origin}/api/v1/analytics/campaigns/${id}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      return { status: res.status, body: (await res.json()) as Record<string, never> };
    };
    /** Analytics' answer once its links are `ids` (its membership follows management's through the bus). */
    const settled = (id: number, ids: string[], description: string) =>
      waitFor(
        async () => {
          const res = await analytics(owner().api_key, id);
          const data = res.body.data as { links: { link_id: string }[] } | undefined;
          return res.status === 200 &&
            JSON.stringify(data?.links.map((l) => l.link_id)) === JSON.stringify(ids)
            ? data
            : null;
        },
        { timeoutMs: 15_000, intervalMs: 100, description },
      );

    const { id } = (await call("POST", "/campaign/add", { name: "Fresh" })).body;
    // An empty campaign has no clicks, which is an answer, not "not found".
    expect(await settled(id, [], "the new campaign in analytics")).toEqual({
      campaign_id: id,
      total_clicks: 0,
      links: [],
    });
    const link = await createLink(bed.stack, owner().api_key, "https://example.com/fresh");
    expectLegacyMessage(await call("POST", `/campaign/${id}/assign/${link.id}`), /added/);
    expect(await settled(id, [link.id], "the assigned link in analytics")).toEqual({
      campaign_id: id,
      total_clicks: 0,
      links: [{ link_id: link.id, short_code: link.short_code, total_clicks: 0 }],
    });
    // The link's delete takes it out of the campaign in analytics too.
    const del = await fetch(`${bed.stack.origin}/api/v1/links/${link.id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${owner().api_key}` },
    });
    expect(del.status).toBe(200);
    await settled(id, [], "the deleted link out of the campaign in analytics");

    // Another account's campaign, an unknown one and a deleted one are one 404: existence never shows.
    const foreign = await analytics(stranger().api_key, id);
    const unknown = await analytics(stranger().api_key, 999_999_999);
    expectLegacyMessage(await call("DELETE", `/campaign/${id}/delete`));
    const gone = await waitFor(
      async () => {
        const res = await analytics(owner().api_key, id);
        return res.status === 404 ? res : null;
      },
      { timeoutMs: 15_000, intervalMs: 100, description: "the deleted campaign gone from analytics" },
    );
    for (const res of [foreign, unknown, gone]) {
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual(foreign.body.error);
    }
  });

  it("assigns only the caller's own links to the caller's own campaigns", async () => {
    const mine = (await call("POST", "/campaign/add", { name: "Mine" })).body.id;
    const theirs = (await other("POST", "/campaign/add", { name: "Theirs" })).body.id;
    const myLink = await createLink(bed.stack, owner().api_key, "https://example.com/mine");
    const theirLink = await createLink(bed.stack, stranger().api_key, "https://example.com/theirs");

    expectLegacyError(await call("POST", `/campaign/${mine}/assign/${theirLink.id}`), 404, /Link not found/);
    expectLegacyError(
      await call("POST", `/campaign/${theirs}/assign/${myLink.id}`),
      404,
      /Campaign not found/,
    );
    expectLegacyError(
      await call("POST", `/campaign/${mine}/assign/00000000-0000-4000-8000-000000000000`),
      404,
      /Link not found/,
    );
    expectLegacyError(await call("POST", `/campaign/${mine}/assign/not-a-uuid`), 400);
    expectLegacyError(await call("POST", `/campaign/abc/assign/${myLink.id}`), 400);
  });

  it("treats another account's campaign as not found and changes nothing", async () => {
    const slug = uniqueSlug();
    const { id } = (await call("POST", "/campaign/add", { name: "Guarded", slug })).body;
    expectLegacyError(await other("PUT", `/campaign/${id}/update`, { name: "Taken over" }), 404);
    expectLegacyError(await other("DELETE", `/campaign/${id}/delete`), 404);
    const theirs = expectLegacyList(await other("GET", "/campaigns?limit=100"), "campaigns");
    expect(theirs.campaigns.map((c: { id: number }) => c.id)).not.toContain(id);
    const mine = expectLegacyList(await call("GET", "/campaigns?limit=100"), "campaigns");
    expect(mine.campaigns.find((c: { id: number }) => c.id === id)).toMatchObject({ name: "Guarded" });
    expect(await rotator(slug)).not.toBeNull();
  });

  it("deletes a campaign and its rotator, freeing the slug", async () => {
    const slug = uniqueSlug();
    const { id } = (await call("POST", "/campaign/add", { slug })).body;
    expectLegacyMessage(await call("DELETE", `/campaign/${id}/delete`), /deleted/);
    expect(await rotator(slug)).toBeNull();
    expectLegacyError(await call("DELETE", `/campaign/${id}/delete`), 404);
    expectLegacyError(await call("PUT", `/campaign/${id}/update`, { name: "Gone" }), 404);
    expect((await other("POST", "/campaign/add", { slug })).status).toBe(200);
    expectLegacyError(await call("DELETE", "/campaign/0/delete"), 400);
  });

  it("resolves a rotator for the redirect service on its internal endpoint only", async () => {
    const slug = uniqueSlug();
    const { id } = (await call("POST", "/campaign/add", { slug })).body;
    const link = await createLink(bed.stack, owner().api_key, "https://example.com/resolve");
    await call("POST", `/campaign/${id}/assign/${link.id}`);
    await bed.redis.del(rotatorKey(slug));
    const token = internalHeaders(bed.stack.env.INTERNAL_TOKEN!, "redirect");
    const res = await fetch(`${bed.stack.urls.management}/internal/rotators/resolve/${slug}`, {
      headers: token,
    });
    expect(res.status).toBe(200);
    expect(RotatorRecord.parse(await res.json())).toEqual({
      campaign_id: id,
      account_id: expect.any(String),
      links: [{ id: link.id, short_code: link.short_code, weight: 1 }],
      v: expect.any(Number),
    });
    expect(await rotator(slug)).not.toBeNull();
    const missing = await fetch(`${bed.stack.urls.management}/internal/rotators/resolve/no-such-${slug}`, {
      headers: token,
    });
    expect(missing.status).toBe(404);
    expect((await fetch(`${bed.stack.urls.management}/internal/rotators/resolve/${slug}`)).status).toBe(401);
  });

  it("serves the public list page only while the campaign is public, escaped", async () => {
    const { id, list } = (await call("POST", "/campaign/add", { name: "<b>Launch</b> & co", public: true }))
      .body;
    const live = await createLink(bed.stack, owner().api_key, "https://example.com/live", {
      title: "Live <script>x</script>",
    });
    const off = await createLink(bed.stack, owner().api_key, "https://example.com/off", {
      title: "Switched off",
    });
    await call("POST", `/campaign/${id}/assign/${live.id}`);
    await call("POST", `/campaign/${id}/assign/${off.id}`);
    const deactivated = await fetch(`${bed.stack.origin}/api/v1/links/${off.id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${owner().api_key}`, "content-type": "application/json" },
      body: JSON.stringify({ is_active: false }),
    });

    // Anonymous, as a visitor would open it.
    const page = await fetch(list);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain("&lt;b&gt;Launch&lt;/b&gt; &amp; co");
    expect(html).not.toContain("<b>Launch</b>");
    expect(html).toContain(`${bed.stack.origin}/${live.short_code}`);
    expect(html).toContain("Live &lt;script&gt;x&lt;/script&gt;");
    expect(html).not.toContain("<script>");
    // Inactive links are left off: a visitor could not follow them.
    expect(deactivated.status).toBe(200);
    expect(html).not.toContain(off.short_code);

    await call("PUT", `/campaign/${id}/update`, { name: "Now private", public: false });
    const hidden = await fetch(list);
    expect(hidden.status).toBe(404);
    expect(await hidden.text()).not.toContain("Now private");

    for (const path of ["/c/999999999", "/c/abc", "/c/", `/c/${id}`, `${new URL(list).pathname}/extra`]) {
      const res = await fetch(`${bed.stack.origin}${path}`);
      expect(res.status, path).toBe(404);
      expect(res.headers.get("content-type"), path).toMatch(/^text\/html/);
    }
  });

  // End to end: the redirect service reads the rotator record, and analytics counts each click.
  it("GET /r/<slug> cycles through the active links and counts each click", async () => {
    const slug = uniqueSlug();
    const { id } = (await call("POST", "/campaign/add", { slug })).body;
    const links = [
      await createLink(bed.stack, owner().api_key, "https://example.com/r1"),
      await createLink(bed.stack, owner().api_key, "https://example.com/r2"),
      await createLink(bed.stack, owner().api_key, "https://example.com/r3"),
    ];
    for (const link of links) await call("POST", `/campaign/${id}/assign/${link.id}`);
    const locations: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${bed.stack.origin}/r/${slug}`, {
        redirect: "manual",
        headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0" },
      });
      expect(res.status).toBe(302);
      locations.push(res.headers.get("location") ?? "");
    }
    expect(new Set(locations)).toEqual(
      new Set(["https://example.com/r1", "https://example.com/r2", "https://example.com/r3"]),
    );
    for (const url of ["https://example.com/r1", "https://example.com/r2", "https://example.com/r3"]) {
      expect(locations.filter((l) => l === url)).toHaveLength(2);
    }
    for (const link of links) {
      await waitFor(
        async () => {
          const res = await fetch(`${bed.stack.origin}/api/v1/analytics/${link.id}`, {
            headers: { authorization: `Bearer ${owner().api_key}` },
          });
          if (res.status !== 200) return false;
          return ((await res.json()) as { data: { total_clicks: number } }).data.total_clicks === 2;
        },
        { timeoutMs: 15_000, intervalMs: 200, description: "two clicks on each rotated link" },
      );
    }

    // A switched-off link drops out of the rotation.
    const off = await fetch(`${bed.stack.origin}/api/v1/links/${links[1]!.id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${owner().api_key}`, "content-type": "application/json" },
      body: JSON.stringify({ is_active: false }),
    });
    expect(off.status).toBe(200);
    await waitFor(
      async () => {
        const seen = new Set<string>();
        for (let i = 0; i < 4; i++) {
          const res = await fetch(`${bed.stack.origin}/r/${slug}`, { redirect: "manual" });
          seen.add(res.headers.get("location") ?? String(res.status));
        }
        return seen.size === 2 && !seen.has("https://example.com/r2");
      },
      { timeoutMs: 10_000, description: "the rotation to skip the inactive link" },
    );
  });
});
