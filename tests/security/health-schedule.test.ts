// Attacks on scheduled link health (docs/health.md, "Scheduled checks"): the workspace's interval changed
// by someone who may not, or set to nonsense; and destinations the scheduler must not fetch (loopback not
// on the allow-list, a private address) turned into requests by the scheduler instead of a check on
// demand. The scheduler runs in this stack (the test stacks turn it off), polling often.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAs, expectV1Error, useSessionStack } from "./attack.ts";
import { keyOf, makeTeam, type Team } from "./team.ts";

const { bed } = useSessionStack(
  {
    SESSION_RATE_LIMIT_PER_MINUTE: "100000",
    HEALTH_SCHEDULE: "on",
    HEALTH_SCHEDULE_POLL_MS: "100",
    // Only 127.0.0.2 (where nothing listens) is allowed: 127.0.0.1 is an address the guard refuses.
    TITLE_FETCH_ALLOW_HOSTS: "127.0.0.2",
  },
  { inProcess: true },
);
const origin = () => bed.stack.origin;

let server: Server;
let port: number;
let requests = 0;
let team: Team;
let key: string;

beforeAll(async () => {
  server = createServer((_req, res) => {
    requests++;
    res.end("ok");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
  team = await makeTeam(origin(), "health-schedule");
  key = await keyOf(origin(), team.people.owner);
}, 90_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
});

async function newLink(url: string): Promise<string> {
  const res = await callAs(origin(), "POST", "/api/v1/links", { key }, { url, title: "scheduled" });
  expect(res.status, res.text).toBe(201);
  return res.body.data.id as string;
}

/** The link's health once the scheduler has checked it. */
async function scheduledHealth(id: string) {
  const until = Date.now() + 15_000;
  for (;;) {
    const res = await callAs(origin(), "GET", `/api/v1/links/${id}/health`, { key });
    if (res.body.data.current !== null || Date.now() > until) return res.body.data.current;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("scheduled link health", () => {
  it("only admins and owners change the interval; nonsense is refused and changes nothing", async () => {
    for (const role of ["member", "viewer"] as const) {
      expectV1Error(
        await callAs(origin(), "PATCH", "/api/v1/account", team.people[role].session, {
          health_check_interval: "off",
        }),
        403,
        "FORBIDDEN",
      );
    }
    for (const value of ["every-second", 0, "", { hours: 1 }]) {
      expectV1Error(
        await callAs(origin(), "PATCH", "/api/v1/account", { key }, { health_check_interval: value }),
        400,
        "VALIDATION_ERROR",
      );
    }
    const account = await callAs(origin(), "GET", "/api/v1/account", { key });
    expect(account.body.data.health_check_interval).toBe("daily");
  });

  it("the scheduler refuses loopback and private destinations without fetching them", async () => {
    const loopback = await newLink(`http://127.0.0.1:${port}/internal`);
    const privateNet = await newLink("http://10.0.0.1/admin");
    expect(await scheduledHealth(loopback)).toMatchObject({ state: "refused", status_code: null });
    expect(await scheduledHealth(privateNet)).toMatchObject({ state: "refused", status_code: null });
    expect(requests).toBe(0);
    // An allow-listed host is checked (nothing listens there: a connection error, not a refusal).
    const allowed = await newLink(`http://127.0.0.2:${port}/`);
    expect(await scheduledHealth(allowed)).toMatchObject({ state: "connection_error" });
  }, 60_000);
});
