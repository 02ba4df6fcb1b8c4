// The bundle `./kurz up`, the benchmark and the image run (decision 0001): built by the same command,
// then booted and used like the service from source: a redirect with its click on the bus, a password
// link (the argon2 addon stays outside the bundle and must still load), metrics.
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { type RedirectRecord, redirectKey } from "@kurz/contracts";
import {
  cleanupRedisPrefix,
  printProcessOutputOnFailure,
  testRedisUrl,
  uniquePrefix,
  waitFor,
} from "@kurz/testing";
import { hash } from "@node-rs/argon2";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ClickObserver, observeClicks } from "./support/click-observer.ts";
import { type FakeManagement, startFakeManagement } from "./support/fake-management.ts";
import { redirectRecord } from "./support/records.ts";
import { bootRedirect, metrics, type RedirectProcess } from "./support/redirect-process.ts";

printProcessOutputOnFailure();

const root = resolve(import.meta.dirname, "../../..");
const prefix = uniquePrefix("redirect-bundle");
const token = `token-${prefix}`;
const record = (url: string, extra: Partial<RedirectRecord> = {}) =>
  redirectRecord(url, { id: "0190a1b2-0000-7000-8000-0000000000b1", ...extra });

let mgmt: FakeManagement;
let redirect: RedirectProcess;
let redis: Redis;
let clicks: ClickObserver;

beforeAll(async () => {
  execFileSync(process.execPath, ["--import", "tsx", "infra/build/bundle.ts", "redirect"], { cwd: root });
  mgmt = await startFakeManagement(token);
  redis = new Redis(testRedisUrl(), { keyPrefix: `${prefix}:` });
  clicks = await observeClicks({ prefix, redisUrl: testRedisUrl() });
  redirect = await bootRedirect(
    {
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: `${prefix}:`,
      BUS: "redis",
      BUS_PREFIX: prefix,
      INTERNAL_TOKEN: token,
      MANAGEMENT_URL: mgmt.url,
    },
    { bundled: true },
  );
}, 120_000);

afterAll(async () => {
  expect(await redirect?.proc.stop()).toBe(0);
  await clicks?.stop();
  await mgmt?.close();
  redis?.disconnect();
  await cleanupRedisPrefix(testRedisUrl(), prefix);
});

it("redirects from the bundle and publishes the click", async () => {
  await redis.set(redirectKey("bundled"), JSON.stringify(record("https://example.com/b")));
  const res = await fetch(`${redirect.url}/bundled`, {
    redirect: "manual",
    headers: { "user-agent": "bundle-test/1", referer: "https://from.example/" },
  });
  expect(res.status).toBe(302);
  expect(res.headers.get("location")).toBe("https://example.com/b");
  await waitFor(() => clicks.events.some((e) => e.short_code === "bundled"), { timeoutMs: 10_000 });
  expect(clicks.events.find((e) => e.short_code === "bundled")).toMatchObject({
    link_id: record("").id,
    user_agent: "bundle-test/1",
    referrer: "https://from.example/",
    ip: "127.0.0.1",
  });
});

it("verifies a link password with the argon2 addon loaded beside the bundle", async () => {
  const password_hash = await hash("open sesame");
  await redis.set(redirectKey("locked"), JSON.stringify(record("https://example.com/l", { password_hash })));
  const post = (password: string) =>
    fetch(`${redirect.url}/locked`, {
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
  const m = await metrics(redirect);
  expect(m.clicks_dropped_total).toBe(0);
  expect(m.process_resident_memory_bytes).toBeGreaterThan(0);
  expect((await fetch(`${redirect.url}/metrics`)).status).toBe(404);
});
