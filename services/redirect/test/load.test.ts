// Bounded loopback load: N redirects over keep-alive connections, then exactly N click events on the
// bus (counted by click id at a consumer of our own, as analytics would see them).
import { Agent, request } from "node:http";
import { redirectKey } from "@kurz/contracts";
import { testRedisUrl } from "@kurz/testing";
import { expect, it } from "vitest";
import { expectEveryClickOnce, observeClicks } from "./support/click-observer.ts";
import { numberedRecord } from "./support/records.ts";
import { useRedirectFixture } from "./support/redirect-fixture.ts";
import { metrics } from "./support/redirect-process.ts";

const N = 20_000;
const CONNECTIONS = 32;
const LINKS = 1_000;

const t = useRedirectFixture({
  name: "redirect-load",
  before: async (f) => {
    const seed = f.redis.pipeline();
    for (let i = 0; i < LINKS; i++)
      seed.set(redirectKey(`load${i}`), JSON.stringify(numberedRecord(i, `https://example.com/${i}`)));
    await seed.exec();
  },
});

it(`${N} redirects produce exactly ${N} click events`, async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const { hostname, port } = new URL(t.redirect.url);
  const statuses = new Map<number, number>();
  let next = 0;
  const one = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const req = request({ host: hostname, port, path: `/load${i % LINKS}`, agent }, (res) => {
        statuses.set(res.statusCode!, (statuses.get(res.statusCode!) ?? 0) + 1);
        res.resume();
        res.on("end", resolve);
      });
      req.on("error", reject);
      req.end();
    });
  const worker = async () => {
    while (next < N) await one(next++);
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  agent.destroy();
  expect(Object.fromEntries(statuses)).toEqual({ 302: N });

  const observer = await observeClicks({ prefix: t.prefix, redisUrl: testRedisUrl() });
  try {
    await expectEveryClickOnce(observer, t.redirect, N, { markers: ["load0"], timeoutMs: 30_000 });
    expect(new Set(observer.events.map((e) => e.short_code)).size).toBe(LINKS);
    expect((await metrics(t.redirect)).clicks_dropped_total).toBe(0);
  } finally {
    await observer.stop();
  }
});
