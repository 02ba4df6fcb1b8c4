// A YOURLS or Kutt user's links, moved to Kurz, go where the peer sent them (docs/import-export.md,
// "Moving from YOURLS or Kutt"). The real exports recorded from a running Kutt v3.2.3 (three pages,
// concatenated) and YOURLS 1.10.4 (its stats API) are imported, each into an account of its own stack
// (a code is one namespace across a service, and both peers made `docs`, `7`, `a`, …), and every code
// the peer served (destinations.json beside each export) is accounted for:
// - a code Kurz created redirects where the peer did, compared as parsed URLs (Kutt percent-encodes its
//   Location, YOURLS writes raw UTF-8); an expired one answers as expired links do;
// - a Kutt code protected by a password the export leaves out is an inactive link, not served, listed
//   as needing its owner (and, once its owner sets a password, it leads where Kutt's unlock did);
// - a code Kurz refuses (one of its own paths, a code of `_`/`-` only, a mailto: or ftp: destination) is
//   a refused row with its reason, and a reserved one is served as PREFIX-code by an import with
//   rename_reserved;
// and the job's counts are what the documented rules make of the fixture's rows. Re-imports create
// nothing twice.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { CODE_RULE, HttpUrl, ImportRenamePrefix, isCodeShaped, isReservedAlias } from "@kurz/contracts";
import { printProcessOutputOnFailure, waitFor } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { parse as parseCsv } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, importCalls, RELAXED_LIMITS, raw, uniqueEmail } from "../security/attack.ts";

printProcessOutputOnFailure();

const fixtures = resolve(import.meta.dirname, "../../services/management/test/fixtures/imports");
const fixture = (path: string) => readFileSync(resolve(fixtures, path));

/** What the recording says the peer answered for a code. */
interface Served {
  status: number;
  location: string | null;
  protected?: boolean;
  unlocked?: { status: number; body: { target: string } };
}

/** One record of the export, as the peer described its link, with what the peer served for its code. */
interface PeerRow {
  row: number;
  code: string;
  url: string;
  /** The peer protects it with a password its export leaves out. */
  protected: boolean;
  /** Epoch ms, or null: never expires. */
  expiresAt: number | null;
  /** Where the peer sent a visitor (after the password, for a protected link). */
  destination: string;
}

interface Peer {
  name: string;
  file: Buffer;
  rows: PeerRow[];
  /** Every code the recording holds an answer for. */
  recorded: string[];
}

function destinationsOf(dir: string): Record<string, Served> {
  return JSON.parse(fixture(`${dir}/destinations.json`).toString()).codes;
}

/** Where the peer sent a visitor of this code: its Location, or the target its password unlocked. */
function destinationOf(served: Served | undefined, code: string): string {
  const to = served?.location ?? served?.unlocked?.body.target;
  if (to === undefined || to === null) throw new Error(`the recording has no destination for ${code}`);
  return to;
}

function kutt(): Peer {
  const pages = ["page-1.json", "page-2.json", "page-3.json"].map((n) => fixture(`kutt-v3/${n}`));
  const served = destinationsOf("kutt-v3");
  const links: { address: string; target: string; password: boolean; expire_in: string | null }[] =
    pages.flatMap((p) => JSON.parse(p.toString()).data);
  return {
    name: "Kutt",
    recorded: Object.keys(served),
    // Saved one page after another, as `curl >>` appends them.
    file: Buffer.concat(pages),
    rows: links.map((l, i) => ({
      row: i + 1,
      code: l.address,
      url: l.target,
      protected: l.password,
      expiresAt: l.expire_in === null ? null : Date.parse(l.expire_in),
      destination: destinationOf(served[l.address], l.address),
    })),
  };
}

function yourls(): Peer {
  const file = fixture("yourls-api/stats-limit-1000.json");
  const served = destinationsOf("yourls-api");
  const links: { shorturl: string; url: string }[] = Object.values(JSON.parse(file.toString()).links);
  return {
    name: "YOURLS",
    recorded: Object.keys(served),
    file,
    rows: links.map((l, i) => {
      const code = l.shorturl.slice(l.shorturl.lastIndexOf("/") + 1);
      return {
        row: i + 1,
        code,
        url: l.url,
        protected: false,
        expiresAt: null,
        destination: destinationOf(served[code], code),
      };
    }),
  };
}

type Outcome =
  | { kind: "created" }
  | { kind: "needs_attention" }
  | { kind: "reserved" }
  | { kind: "failed"; fields: ("alias" | "url")[] };

/**
 * What the documented rules make of a row imported onto the public host without rename_reserved
 * ("What a row becomes" and "Codes"): the import's code rule and the API's URL rule first, then Kurz's
 * own paths, then a password the export leaves out. Nothing else in these files is refused: every row
 * names its own code (no two alike) and the account starts empty.
 */
function outcomeOf(row: PeerRow): Outcome {
  const fields: ("alias" | "url")[] = [];
  if (!isCodeShaped(row.code)) fields.push("alias");
  if (!HttpUrl.safeParse(row.url).success) fields.push("url");
  if (fields.length > 0) return { kind: "failed", fields };
  if (isReservedAlias(row.code)) return { kind: "reserved" };
  return row.protected ? { kind: "needs_attention" } : { kind: "created" };
}

/** The same URL, however each side spells it (percent-encoded, raw UTF-8, punycode host). */
const sameUrl = (a: string, b: string) => new URL(a).href === new URL(b).href;

// The time limit of each test: a link whose expiry falls after `now + TEST_LIMIT_MS` is live throughout.
const TEST_LIMIT_MS = 180_000;
const PREFIX = "old";
ImportRenamePrefix.parse(PREFIX);

describe.each([
  ["Kutt v3.2.3, three pages saved into one file", kutt],
  ["YOURLS 1.10.4, its stats API", yourls],
])("%s", (_title, load) => {
  const peer = load();
  let stack: Stack;
  let apiKey: string;

  beforeAll(async () => {
    stack = await startStack({ inProcess: true, extraEnv: { ...RELAXED_LIMITS, IMPORT_POLL_MS: "100" } });
    apiKey = (await stack.createAccount(uniqueEmail(`parity-${peer.name.toLowerCase()}`))).api_key;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const call = (method: string, path: string, body?: unknown) => api(stack, apiKey)(method, path, body);
  const imports = importCalls(
    {
      get stack() {
        return stack;
      },
    },
    60_000,
  );
  /** Uploads the export and waits for its job to complete. */
  const imported = (query = "") => imports.imported(apiKey, peer.file, { query, type: "application/json" });

  /** The job's refused rows (the errors CSV), by file row. */
  async function refusedRows(
    id: string,
  ): Promise<Map<number, { alias: string; url: string; error: string }>> {
    const res = await call("GET", `/api/v1/imports/${id}/errors`);
    expect(res.status).toBe(200);
    const records: { row: string; alias: string; url: string; error: string }[] = parseCsv(res.text, {
      columns: true,
    });
    // Kurz's CSVs neutralise a cell a spreadsheet would run as a formula with a leading `'`.
    const cell = (s: string) => (/^'[=+\-@\t\r]/.test(s) ? s.slice(1) : s);
    return new Map(
      records.map((r) => [Number(r.row), { alias: cell(r.alias), url: cell(r.url), error: r.error }]),
    );
  }

  const visit = (code: string) => raw(stack.origin, "GET", `/${code}`);

  /** Kurz answers `code` with a redirect to where the peer sent it. */
  async function expectServedAsPeer(code: string, row: PeerRow) {
    const res = await visit(code);
    const location = res.headers.location as string | undefined;
    expect({ code, status: res.status }).toEqual({ code, status: 302 });
    expect(location !== undefined && sameUrl(location, row.destination), `${code}: ${location}`).toBe(true);
  }

  it(
    "serves every code the peer served to the same destination, or accounts for it in the job",
    async () => {
      // The one reading of the clock: the rows' expiry is compared with it.
      const now = Date.now();
      const rows = peer.rows;
      // The recording and the export name the same codes, so every code the peer served is a row below.
      expect(rows.map((r) => r.code).sort()).toEqual([...peer.recorded].sort());

      const outcomes = rows.map((row) => ({ row, outcome: outcomeOf(row) }));
      const of = (kind: Outcome["kind"]) => outcomes.filter((o) => o.outcome.kind === kind).map((o) => o.row);
      const created = of("created");
      const attention = of("needs_attention");
      const reserved = of("reserved");
      const refused = [...of("failed"), ...reserved];
      // Each kind of row is present, or the file would not exercise what this test claims.
      expect(created.length).toBeGreaterThan(0);
      expect(reserved.length).toBeGreaterThan(0);
      expect(of("failed").length).toBeGreaterThan(0);
      if (peer.name === "Kutt") expect(attention.length).toBeGreaterThan(0);

      const job = await imported();
      expect(job.format).toBe(peer.name.toLowerCase());
      expect(job.counts).toEqual({
        total: rows.length,
        processed: rows.length,
        created: created.length,
        skipped: 0,
        needs_attention: attention.length,
        failed: refused.length,
      });

      // Created: where the peer sent it, or, once its expiry has passed, the expired link's page.
      for (const row of created) {
        if (row.expiresAt !== null && row.expiresAt <= now) {
          expect({ code: row.code, status: (await visit(row.code)).status }).toEqual({
            code: row.code,
            status: 410,
          });
        } else if (row.expiresAt === null || row.expiresAt > now + TEST_LIMIT_MS) {
          await expectServedAsPeer(row.code, row);
        } else {
          // Expires while this test runs: either answer is right, depending on the moment it is asked.
          const res = await visit(row.code);
          if (res.status === 302) expect(sameUrl(res.headers.location as string, row.destination)).toBe(true);
          else expect(res.status).toBe(410);
        }
      }

      // Protected at the peer: an inactive link (the 404 page, no redirect), listed as needing its owner.
      const listed = await call("GET", `/api/v1/imports/${job.id}/attention?per_page=100`);
      expect(listed.status).toBe(200);
      expect(listed.body.meta.total).toBe(attention.length);
      const attentionRows = new Map(
        (
          listed.body.data as { row: number; alias: string; url: string; reason: string; link_id: string }[]
        ).map((a) => [a.row, a]),
      );
      for (const row of attention) {
        const res = await visit(row.code);
        expect({ code: row.code, status: res.status, location: res.headers.location }).toEqual({
          code: row.code,
          status: 404,
          location: undefined,
        });
        const listedRow = attentionRows.get(row.row);
        expect(listedRow, row.code).toMatchObject({
          alias: row.code,
          reason: expect.stringContaining(`protected in ${peer.name}`),
          link: { short_code: row.code, is_active: false, has_password: false },
        });
        expect(sameUrl(listedRow!.url, row.destination), row.code).toBe(true);
      }

      // Refused: a row of the errors CSV with its reason, and the peer's destination is not served.
      const refusals = await refusedRows(job.id);
      expect([...refusals.keys()].sort((a, b) => a - b)).toEqual(
        refused.map((r) => r.row).sort((a, b) => a - b),
      );
      for (const { row, outcome } of outcomes) {
        if (outcome.kind !== "failed" && outcome.kind !== "reserved") continue;
        const refusal = refusals.get(row.row)!;
        expect({ alias: refusal.alias, url: refusal.url }).toEqual({ alias: row.code, url: row.url });
        if (outcome.kind === "reserved") {
          expect(refusal.error).toContain(`alias: "${row.code}" is one of Kurz's own paths`);
          expect(refusal.error).toContain(`rename_reserved=PREFIX`);
        } else {
          if (outcome.fields.includes("alias")) expect(refusal.error).toContain(`alias: Only ${CODE_RULE}`);
          if (outcome.fields.includes("url")) expect(refusal.error).toMatch(/^(.*; )?url: /);
          expect(refusal.error).toContain("To import it,");
        }
        if (isCodeShaped(row.code)) {
          const location = (await visit(row.code)).headers.location as string | undefined;
          const toPeers =
            location !== undefined && URL.canParse(location) && sameUrl(location, row.destination);
          expect(toPeers, `${row.code} redirects to ${location}`).toBe(false);
        }
      }

      // The same file again creates nothing twice: every link is there, the same rows are refused.
      const again = await imported();
      expect(again.counts).toEqual({
        total: rows.length,
        processed: rows.length,
        created: 0,
        skipped: created.length + attention.length,
        needs_attention: 0,
        failed: refused.length,
      });
      expect(await refusedRows(again.id)).toEqual(refusals);

      // With rename_reserved, Kurz's own paths are kept as PREFIX-code and go where the peer sent them.
      const renaming = await imported(`?rename_reserved=${PREFIX}`);
      expect(renaming.counts).toEqual({
        total: rows.length,
        processed: rows.length,
        created: reserved.length,
        skipped: created.length + attention.length,
        needs_attention: 0,
        failed: refused.length - reserved.length,
      });
      expect(renaming.renamed).toBe(reserved.length);
      expect(renaming.renamed_preview).toEqual(
        reserved.slice(0, 20).map((r) => ({ row: r.row, code: r.code, short_code: `${PREFIX}-${r.code}` })),
      );
      for (const row of reserved) await expectServedAsPeer(`${PREFIX}-${row.code}`, row);
      const renamingAgain = await imported(`?rename_reserved=${PREFIX}`);
      expect(renamingAgain.counts).toMatchObject({
        created: 0,
        skipped: created.length + attention.length + reserved.length,
      });
      expect(renamingAgain.renamed).toBe(0);

      // A protected link its owner finishes (the password its visitors used at the peer, and active)
      // leads, past the password, where the peer's unlock did.
      for (const row of attention) {
        const { link_id } = attentionRows.get(row.row)!;
        const patched = await call("PATCH", `/api/v1/links/${link_id}`, {
          password: "peer-password-1",
          is_active: true,
        });
        expect(patched.status, patched.text).toBe(200);
        if (row.expiresAt !== null && row.expiresAt <= now + TEST_LIMIT_MS) continue;
        // The redirect learns of the change through the outbox and the bus: until then the link is
        // the import's inactive one, a 404. Polled gently, within the redirect's miss budget.
        const through = await waitFor(
          async () => {
            const answer = await raw(stack.origin, "POST", `/${row.code}`, {
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: "password=peer-password-1",
            });
            return answer.status === 404 ? undefined : answer;
          },
          { timeoutMs: 15_000, intervalMs: 250, description: `the redirect to take ${row.code}'s update` },
        );
        expect({ code: row.code, status: through.status }).toEqual({ code: row.code, status: 303 });
        expect(sameUrl(through.headers.location as string, row.destination), row.code).toBe(true);
      }
    },
    TEST_LIMIT_MS,
  );
});
