import express from "express";
import { beforeAll, describe, expect, it } from "vitest";
import { handleHealth, healthRoutes } from "../src/index.ts";
import { serve } from "./helpers.ts";

const refused = () =>
  Promise.reject(Object.assign(new Error("connect ECONNREFUSED 10.1.2.3:5432"), { code: "ECONNREFUSED" }));
const leaksAddress = () => Promise.reject(new Error("no route to 10.1.2.3:6379 from here"));
const hangs = () => new Promise(() => {});
const fine = async () => "PONG";

describe("healthRoutes on express", () => {
  let healthyUrl = "";
  let failingUrl = "";

  beforeAll(async () => {
    const healthy = express();
    healthy.use(healthRoutes({ postgres: fine, redis: fine }));
    ({ url: healthyUrl } = await serve(healthy));

    const failing = express();
    failing.use(
      healthRoutes({ postgres: fine, redis: refused, bus: hangs, cache: leaksAddress }, { timeoutMs: 200 }),
    );
    ({ url: failingUrl } = await serve(failing));
  });

  it("/health answers 200 while the process serves, whatever the dependencies", async () => {
    const res = await fetch(`${failingUrl}/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("/ready answers 200 when every check passes", async () => {
    const res = await fetch(`${healthyUrl}/ready`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ready", checks: { postgres: "ok", redis: "ok" } });
  });

  it("/ready answers 503 naming failed and timed-out checks, with no addresses", async () => {
    const res = await fetch(`${failingUrl}/ready`);
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body).toEqual({
      status: "not_ready",
      checks: { postgres: "ok", redis: "failed", bus: "failed", cache: "failed" },
      failing: {
        redis: "ECONNREFUSED",
        bus: "timed out after 200 ms",
        cache: "no route to <address> from here",
      },
    });
  });

  it("passes other paths on to the app", async () => {
    const res = await fetch(`${healthyUrl}/healthz`);
    expect(res.status).toBe(404);
  });
});

describe("handleHealth on bare node:http", () => {
  let url = "";

  beforeAll(async () => {
    const handle = handleHealth({ redis: refused });
    ({ url } = await serve((req, res) => {
      if (handle(req, res)) return;
      res.statusCode = 302;
      res.setHeader("location", "https://example.com/");
      res.end();
    }));
  });

  it("serves /health and /ready and leaves other paths to the server", async () => {
    expect((await fetch(`${url}/health`)).status).toBe(200);
    const ready = await fetch(`${url}/ready?verbose=1`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: "not_ready", failing: { redis: "ECONNREFUSED" } });
    const other = await fetch(`${url}/abc123`, { redirect: "manual" });
    expect(other.status).toBe(302);
  });
});
