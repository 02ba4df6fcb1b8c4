// CTA overlays end to end through the public origin (decision 0026): a browser following an
// overlay link gets the overlay page (the destination framed beneath it when the destination allows
// framing, else the interstitial) and the click is counted once; a bot gets the plain redirect; a
// contact overlay's form lands once in the owner's list and CSV; the older API and v1 show one store.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { waitFor } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, RELAXED_LIMITS, raw, uniqueEmail } from "../security/attack.ts";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const BOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

let stack: Stack;
let call: ReturnType<typeof api>;
let destination: Server;
let dest = "";

beforeAll(async () => {
  // One local destination: /open may be framed, /deny says X-Frame-Options, /csp frame-ancestors 'self'.
  destination = createServer((req, res) => {
    const headers: Record<string, string> = { "content-type": "text/html" };
    if (req.url?.startsWith("/deny")) headers["x-frame-options"] = "DENY";
    if (req.url?.startsWith("/csp")) headers["content-security-policy"] = "frame-ancestors 'self'";
    res.writeHead(200, headers).end("<title>Destination</title>");
  });
  await new Promise<void>((r) => destination.listen(0, "127.0.0.1", r));
  dest = `http://127.0.0.1:${(destination.address() as AddressInfo).port}`;
  stack = await startStack({
    inProcess: true,
    extraEnv: { ...RELAXED_LIMITS, TITLE_FETCH_ALLOW_HOSTS: "127.0.0.1" },
  });
  const owner = await stack.createAccount(uniqueEmail("overlays"));
  call = api(stack, owner.api_key);
});
afterAll(async () => {
  await stack?.stop();
  await new Promise((r) => destination?.close(r));
});

const visit = (path: string, ua: string) => raw(stack.origin, "GET", path, { headers: { "user-agent": ua } });

async function overlay(body: Record<string, unknown>): Promise<number> {
  const res = await call("POST", "/api/overlay/add", body);
  expect(res.status, res.text).toBe(200);
  return res.body.id as number;
}

async function link(url: string, overlayId: number) {
  const res = await call("POST", "/api/v1/links", { url, overlay_id: overlayId, title: "t" });
  expect(res.status, res.text).toBe(201);
  expect(res.body.data.overlay_id).toBe(overlayId);
  return res.body.data as { id: string; short_code: string };
}

const clickCounts = async (id: string) => {
  const res = await call("GET", `/api/v1/analytics/${id}`);
  return res.status === 200
    ? { clicks: res.body.data.total_clicks as number, bots: res.body.data.bot_clicks as number }
    : null;
};

describe("message overlays", () => {
  it("frames a destination that allows it, redirects bots, and counts the browser's click once", async () => {
    const id = await overlay({
      type: "message",
      name: "Promo",
      text: "Spring sale: 20% off",
      button_label: "Shop now",
      button_url: "https://shop.example/sale",
      position: "top",
    });
    const l = await link(`${dest}/open`, id);

    const page = await visit(`/${l.short_code}`, BROWSER);
    expect(page.status, page.text).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.text).toContain('data-mode="framed"');
    expect(page.text).toContain(`<iframe src="${dest}/open"`);
    expect(page.text).toContain("Spring sale: 20% off");
    expect(page.text).toContain('href="https://shop.example/sale"');
    expect(page.text).toContain(`href="${dest}/open"`); // "Continue"
    const csp = String(page.headers["content-security-policy"]);
    expect(csp).toContain(`frame-src ${dest}`);
    expect(csp).toContain("default-src 'none'");

    const bot = await visit(`/${l.short_code}`, BOT);
    expect(bot.status).toBe(302);
    expect(bot.headers.location).toBe(`${dest}/open`);

    // The browser's view is the one counted click (bots are recorded but not counted, docs/analytics.md).
    // Once the bot's click (made last) is recorded too, the counts are final.
    const counts = await waitFor(
      async () => {
        const c = await clickCounts(l.id);
        return c && c.clicks >= 1 && c.bots >= 1 ? c : null;
      },
      { timeoutMs: 20_000 },
    );
    expect(counts).toEqual({ clicks: 1, bots: 1 });
  });

  it("shows the interstitial with a Continue link when the destination refuses framing", async () => {
    const id = await overlay({ type: "message", name: "Notice", text: "Before you go" });
    for (const path of ["/deny", "/csp"]) {
      const l = await link(`${dest}${path}`, id);
      const page = await visit(`/${l.short_code}`, BROWSER);
      expect(page.status).toBe(200);
      expect(page.text).toContain('data-mode="interstitial"');
      expect(page.text).not.toContain("<iframe");
      expect(page.text).toContain(`href="${dest}${path}"`);
      expect(String(page.headers["content-security-policy"])).toContain("frame-src 'none'");
    }
  });

  it("follows edits of the overlay and goes back to the plain redirect when the link drops it", async () => {
    const id = await overlay({ type: "message", name: "Edit me", text: "first" });
    const l = await link(`${dest}/deny`, id);
    expect((await visit(`/${l.short_code}`, BROWSER)).text).toContain("first");
    const edited = await call("PUT", `/api/overlay/${id}/update`, { text: "second", bg_color: "#102030" });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.data).toMatchObject({ text: "second", bg_color: "#102030" });
    await waitFor(async () => (await visit(`/${l.short_code}`, BROWSER)).text.includes("second"), {
      timeoutMs: 5_000,
    });
    const dropped = await call("PATCH", `/api/v1/links/${l.id}`, { overlay_id: null });
    expect(dropped.status, dropped.text).toBe(200);
    expect(dropped.body.data.overlay_id).toBeNull();
    await waitFor(async () => (await visit(`/${l.short_code}`, BROWSER)).status === 302, {
      timeoutMs: 5_000,
    });
  });
});

describe("contact overlays", () => {
  it("stores a submission once; the owner lists it (older API) and exports it as CSV", async () => {
    const id = await overlay({
      type: "contact",
      name: "Contact",
      text: "Talk to sales",
      fields: ["name", "email", "message"],
      button_label: "Send",
      button_url: "https://example.com/unused",
    });
    const l = await link(`${dest}/deny`, id);
    const page = await visit(`/${l.short_code}`, BROWSER);
    expect(page.text).toContain('<form method="post">');
    expect(page.text).toContain('name="email"');

    const sent = await raw(stack.origin, "POST", `/${l.short_code}`, {
      headers: { "user-agent": BROWSER, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ name: "Ada", email: "ada@example.com", message: "Call me" }).toString(),
    });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.text).toContain("Thank you");

    const bad = await raw(stack.origin, "POST", `/${l.short_code}`, {
      headers: { "user-agent": BROWSER, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ name: "No mail" }).toString(),
    });
    expect(bad.status).toBe(400);

    const list = await call("GET", `/api/overlay/${id}/submissions`);
    expect(list.status, list.text).toBe(200);
    expect(list.body.data.result).toBe(1);
    expect(list.body.data.submissions[0]).toMatchObject({
      link_id: l.id,
      name: "Ada",
      email: "ada@example.com",
      phone: null,
      message: "Call me",
    });
    expect(JSON.stringify(list.body)).not.toContain("127.0.0.1");

    // v1 shows the same submissions (one store).
    const v1 = await call("GET", `/api/v1/overlays/${id}/submissions`);
    expect(v1.status, v1.text).toBe(200);
    expect(v1.body.meta.total).toBe(1);
    expect(v1.body.data[0]).toMatchObject({ id: list.body.data.submissions[0].id, email: "ada@example.com" });

    const csv = await call("GET", `/api/overlay/${id}/submissions/export`);
    expect(csv.status).toBe(200);
    expect(csv.headers["content-type"]).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split("\r\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('"ada@example.com"');
  });
});

describe("one store for both APIs", () => {
  it("the older API's overlay and v1's link show the same data", async () => {
    const id = await overlay({ type: "message", name: "Same", text: "x", bg_color: "#abcdef" });
    const one = await call("GET", `/api/overlay/${id}`);
    const list = await call("GET", "/api/overlay?limit=100");
    expect(one.body.data.bg_color).toBe("#ABCDEF");
    expect(list.body.data.cta.find((o: { id: number }) => o.id === id)).toEqual(one.body.data);
    const v1Overlay = await call("GET", `/api/v1/overlays/${id}`);
    expect(v1Overlay.status, v1Overlay.text).toBe(200);
    const { created_at, updated_at, ...v1Fields } = v1Overlay.body.data;
    const { date, ...legacyFields } = one.body.data;
    expect(v1Fields).toEqual(legacyFields);
    expect(date).toBe(created_at.slice(0, 19).replace("T", " "));
    expect(typeof updated_at).toBe("string");
    const patched = await call("PATCH", `/api/v1/overlays/${id}`, { name: "Same, renamed" });
    expect(patched.body.data.name).toBe("Same, renamed");
    expect((await call("GET", `/api/overlay/${id}`)).body.data.name).toBe("Same, renamed");
    const created = await call("POST", "/api/v1/overlays", { type: "contact", name: "v1 form" });
    expect(created.status, created.text).toBe(201);
    const v1List = await call("GET", "/api/v1/overlays?per_page=100");
    expect(v1List.body.data.map((o: { id: number }) => o.id)).toContain(created.body.data.id);
    expect((await call("GET", "/api/overlay?limit=100")).body.data.result).toBe(v1List.body.meta.total);

    const l = await link(`${dest}/deny`, id);
    const v1 = await call("GET", `/api/v1/links/${l.id}`);
    expect(v1.body.data.overlay_id).toBe(id);
    const deleted = await call("DELETE", `/api/overlay/${id}/delete`);
    expect(deleted.status).toBe(200);
    expect((await call("GET", `/api/v1/links/${l.id}`)).body.data.overlay_id).toBeNull();
    await waitFor(async () => (await visit(`/${l.short_code}`, BROWSER)).status === 302, {
      timeoutMs: 5_000,
    });
  });
});
