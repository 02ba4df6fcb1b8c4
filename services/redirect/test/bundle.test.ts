// The bundle `./kurz up`, the benchmark and the image run (decision 0001): built by the same command,
// then booted and used like the service from source: a redirect with its click on the bus, a password
// link (the argon2 addon stays outside the bundle and must still load), metrics.
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { type RedirectRecord, redirectKey } from "@kurz/contracts";
import { waitFor } from "@kurz/testing";
import { hash } from "@node-rs/argon2";
import { expect, it } from "vitest";
import { redirectRecord } from "./support/records.ts";
import { useRedirectFixture } from "./support/redirect-fixture.ts";
import { metrics } from "./support/redirect-process.ts";

const root = resolve(import.meta.dirname, "../../..");
const record = (url: string, extra: Partial<RedirectRecord> = {}) =>
  redirectRecord(url, { id: "0190a1b2-0000-7000-8000-0000000000b1", ...extra });

const t = useRedirectFixture({
  name: "redirect-bundle",
  observe: true,
  before: () => {
    execFileSync(process.execPath, ["--import", "tsx", "infra/build/bundle.ts", "redirect"], { cwd: root });
  },
});

it("redirects from the bundle and publishes the click", async () => {
  await t.redis.set(redirectKey("bundled"), JSON.stringify(record("https://example.com/b")));
  const res = await fetch(`${t.redirect.url}/bundled`, {
    redirect: "manual",
    headers: { "user-agent": "bundle-test/1", referer: "https://from.example/" },
  });
  expect(res.status).toBe(302);
  expect(res.headers.get("location")).toBe("https://example.com/b");
  await waitFor(() => t.clicks.events.some((e) => e.short_code === "bundled"), { timeoutMs: 10_000 });
  expect(t.clicks.events.find((e) => e.short_code === "bundled")).toMatchObject({
    link_id: record("").id,
    user_agent: "bundle-test/1",
    referrer: "https://from.example/",
    ip: "127.0.0.1",
  });
});

it("verifies a link password with the argon2 addon loaded beside the bundle", async () => {
  const password_hash = await hash("open sesame");
  await t.redis.set(
    redirectKey("locked"),
    JSON.stringify(record("https://example.com/l", { password_hash })),
  );
  const post = (password: string) =>
    fetch(`${t.redirect.url}/locked`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ password }),
    });
  expect((await post("wrong")).status).toBe(401);
  const ok = await post("open sesame");
  expect(ok.status).toBe(303);
  expect(ok.headers.get("location")).toBe("https://example.com/l");
});

it("reports its click pipeline and memory on /metrics of its operational listener only", async () => {
  const m = await metrics(t.redirect);
  expect(m.clicks_dropped_total).toBe(0);
  expect(m.process_resident_memory_bytes).toBeGreaterThan(0);
  expect((await fetch(`${t.redirect.url}/metrics`)).status).toBe(404);
});
