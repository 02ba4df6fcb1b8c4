// Attacks through `./kurz import clicks --nginx-log FILE` (docs/continuity.md, replay-clicks.ts): a
// hostile access log. Lines naming another workspace's codes give it no click, whatever request ids
// they forge; the same request ids replayed under another workspace are other clicks, so they can
// neither take the place of the victim's (analytics keeps one click per id) nor add to them, nor to
// the victim's click limit (max_clicks) that the victim's own replay advanced. A line of
// 20 MB, fields of the wrong type, prototype keys and absurd times are counted as bad and never stop
// the replay.
import { execFile } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { clickLimitKey } from "@kurz/contracts";
import { waitFor } from "@kurz/testing";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { useAttackerAndVictim, useAttackStack } from "./attack.ts";
import { snapshotLogLine as line } from "./snapshot-log.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);
const bed = useAttackStack({}, { inProcess: true });
const pair = useAttackerAndVictim(bed, "replay");
const dir = mkdtempSync(join(tmpdir(), "kurz-replay-attack-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const R1 = "a".repeat(32);
const R2 = "b".repeat(32);
async function replay(email: string, log: string) {
  const { stdout } = await run(
    process.execPath,
    [
      "--import",
      "tsx",
      "services/management/src/cli.ts",
      "import",
      "clicks",
      "--account",
      email,
      "--nginx-log",
      log,
    ],
    { cwd: ROOT, env: { ...process.env, ...bed.stack.env }, timeout: 120_000, maxBuffer: 1024 * 1024 },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}

describe("a hostile nginx log replayed as clicks", () => {
  it("attributes clicks only to the workspace named, and survives garbage of every kind", async () => {
    const { attacker, victim, asAttacker, asVictim } = pair;
    const create = async (as: typeof asVictim, more: Record<string, unknown> = {}) => {
      const res = await as("POST", "/api/v1/links", { url: "https://example.com/replay", ...more });
      expect(res.status, res.text).toBe(201);
      return { id: res.body.data.id as string, code: res.body.data.short_code as string };
    };
    const victims = await create(asVictim, { max_clicks: 10 });
    const attackers = await create(asAttacker);
    const ms = Date.now() - 60_000;

    const victimLog = join(dir, "victim.log");
    writeFileSync(victimLog, line(R1, victims.code, ms) + line(R2, victims.code, ms + 1));
    expect(await replay(victim.email, victimLog)).toMatchObject({
      replayed: 2,
      unknown: 0,
      bad: 0,
      limitCounted: 2,
    });

    const hostile = join(dir, "hostile.log");
    writeFileSync(
      hostile,
      // The victim's code, with the victim's request ids and new ones: not the attacker's links.
      line(R1, victims.code, ms) +
        line(R2, victims.code, ms + 1) +
        line("c".repeat(32), victims.code, ms + 2) +
        // The victim's request ids on the attacker's own link: the attacker's clicks, other ids.
        line(R1, attackers.code, ms) +
        line(R2, attackers.code, ms + 1),
    );
    // One line of 20 MB with no newline until its end, then more garbage.
    appendFileSync(hostile, `{"request_id":"${"d".repeat(32)}","uri":"/${"x".repeat(20 * 1024 * 1024)}"}\n`);
    appendFileSync(
      hostile,
      [
        '{"__proto__":{"status":"302"},"constructor":{"prototype":{"polluted":1}},"request_id":"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee","uri":"/x"}',
        JSON.stringify({ request_id: ["a"], uri: `/${attackers.code}`, status: 302 }),
        line("f".repeat(32), attackers.code, Date.UTC(1970, 0, 2)).trim(),
        line("1".repeat(32), attackers.code, Date.now() + 30 * 86_400_000).trim(),
        line("2".repeat(32), "../../etc/passwd", ms).trim(),
        "\u0000\u0001binary",
        "",
      ].join("\n"),
    );
    const report = await replay(attacker.email, hostile);
    // Bad: the long line, the prototype keys (no time), the array id, 1970, next month, the binary line.
    // Not a click: a path that is no code. Not this workspace's: the victim's three.
    expect(report).toEqual({
      lines: 12,
      replayed: 2,
      bad: 6,
      notClicks: 1,
      unknown: 3,
      duplicates: 0,
      limitCounted: 0,
      limitNotCounted: 0,
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const redis = new Redis(bed.stack.env.REDIS_URL!, { keyPrefix: bed.stack.env.REDIS_KEY_PREFIX });
    try {
      expect(await redis.get(clickLimitKey(victims.id))).toBe("2");
    } finally {
      redis.disconnect();
    }

    const total = async (as: typeof asVictim, id: string) => {
      const res = await as("GET", `/api/v1/analytics/${id}`);
      return res.body.data.total_clicks as number;
    };
    await waitFor(async () => (await total(asAttacker, attackers.id)) === 2, {
      timeoutMs: 30_000,
      description: "the attacker's two clicks",
    });
    // Published before the attacker's, so stored by now: the victim's two, untouched.
    expect(await total(asVictim, victims.id)).toBe(2);
  }, 180_000);
});
