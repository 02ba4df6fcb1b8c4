// `./kurz login|shorten|links|stats|qr` as a user runs them: the CLI's bundle as a child process (HOME and
// XDG_CONFIG_HOME in a scratch folder) against an in-process stack, checking its text, its --json
// and its exit codes (0 ok, 1 API error, 2 usage, 3 auth, 4 not found).
import { execFile } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKurzClient } from "@kurz/sdk";
import { waitFor } from "@kurz/testing";
import { useStack } from "@kurz/testing/use-stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { buildCli, CLI_BUNDLE } from "../build.ts";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const bed = useStack({ inProcess: true });
let home = "";
let key = "";

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with `args`, answering its questions with `input`; `env` adds to a clean environment. */
function kurz(
  args: string[],
  { input, env = {} }: { input?: string; env?: Record<string, string> } = {},
): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI_BUNDLE, ...args],
      {
        env: { PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: join(home, ".config"), ...env },
        cwd: home,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    // A command that asks nothing may exit before reading its input: the pipe then breaks, harmlessly.
    child.stdin?.on("error", () => {});
    child.stdin?.end(input ?? "");
  });
}

const profile = () => join(home, ".config", "kurz", "profile.json");

beforeAll(async () => {
  // The bundle ./kurz runs, built from this checkout's source.
  await buildCli();
  home = await mkdtemp(join(tmpdir(), "kurz-cli-"));
  key = (await bed.stack.createAccount(`cli-${process.pid}@example.com`)).api_key;
});
afterAll(() => rm(home, { recursive: true, force: true }));

describe("login", () => {
  it("refuses a key the API refuses, saving nothing (exit 3)", async () => {
    const ran = await kurz([
      "login",
      "--host",
      bed.stack.origin,
      "--key",
      "kurz_live_00000000000000000000000000000000",
    ]);
    expect(ran.code, ran.stderr).toBe(3);
    expect(ran.stderr).toMatch(/UNAUTHORIZED/);
    await expect(stat(profile())).rejects.toThrow();
  });

  it("says to log in when there is no profile (exit 3)", async () => {
    const ran = await kurz(["shorten", "https://example.com"]);
    expect(ran.code).toBe(3);
    expect(ran.stderr).toContain("./kurz login");
  });

  it("asks for the host and key, checks them and saves them readable by the owner only", async () => {
    const ran = await kurz(["login"], { input: `${bed.stack.origin}\n${key}\n` });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain(`Logged in to ${bed.stack.origin} as cli-${process.pid}@example.com`);
    expect((await stat(profile())).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(profile(), "utf8"))).toEqual({ host: bed.stack.origin, key });
    const again = await kurz(["login", "--json", "--host", bed.stack.origin, "--key", key]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ host: bed.stack.origin, profile: profile() });
  });
});

describe("with a profile", () => {
  it("shortens a URL: the short URL alone, or the link as JSON", async () => {
    const ran = await kurz(["shorten", "https://example.com"]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(new RegExp(`^${bed.stack.origin}/[A-Za-z0-9_-]+\\n$`));
    const json = await kurz([
      "shorten",
      "https://example.com/docs",
      "--alias",
      "cli-docs",
      "--title",
      "Docs",
      "--expires",
      "2099-12-31",
      "--json",
    ]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      short_code: "cli-docs",
      title: "Docs",
      original_url: "https://example.com/docs",
      expires_at: expect.stringMatching(/^2099-12-31/),
    });
  });

  it("exits 1 with the API's code on a refusal, 2 on a wrong command line", async () => {
    const taken = await kurz(["shorten", "https://example.com", "--alias", "cli-docs"]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/CONFLICT/);
    const invalid = await kurz(["shorten", "not a url", "--json"]);
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stderr)).toMatchObject({
      error: { code: "VALIDATION_ERROR", details: { url: {} } },
    });
    for (const args of [
      ["shorten"],
      ["shorten", "https://example.com", "--nope"],
      ["links"],
      ["qr", "cli-docs"],
      ["nonsense"],
    ]) {
      expect((await kurz(args)).code, args.join(" ")).toBe(2);
    }
  });

  it("lists, searches and removes links; a missing code exits 4", async () => {
    await kurz(["shorten", "https://example.com/list-me", "--alias", "cli-list", "--title", "Findable"]);
    const ls = await kurz(["links", "ls"]);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout.split("\n")[0]).toMatch(/^CODE\s+CLICKS\s+URL\s+TITLE$/);
    expect(ls.stdout).toMatch(/cli-list\s+0\s+https:\/\/example\.com\/list-me\s+Findable/);
    const found = await kurz(["links", "search", "Findable", "--json"]);
    expect(JSON.parse(found.stdout).map((l: { short_code: string }) => l.short_code)).toEqual(["cli-list"]);
    const rm1 = await kurz(["links", "rm", "cli-list"]);
    expect(rm1.code, rm1.stderr).toBe(0);
    expect(rm1.stdout).toBe("Removed cli-list\n");
    const rm2 = await kurz(["links", "rm", "cli-list"]);
    expect(rm2.code).toBe(4);
    expect((await kurz(["stats", "no-such-code"])).code).toBe(4);
  });

  it("shows a link's clicks, their sparkline and top referrers", async () => {
    await kurz(["shorten", "https://example.com/counted", "--alias", "cli-stats"]);
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${bed.stack.origin}/cli-stats`, {
        redirect: "manual",
        headers: {
          "user-agent": BROWSER,
          referer: i < 2 ? "https://news.example.org/post" : "https://mail.example.net/",
        },
      });
      expect(res.status).toBe(302);
    }
    const sdk = createKurzClient({ baseUrl: bed.stack.origin, apiKey: key });
    const link = (await sdk.v1.listLinks({ query: { search: "cli-stats" } }))[0]!;
    await waitFor(
      async () => (await sdk.v1.getLinkAnalytics({ params: { link_id: link.id } })).total_clicks === 3,
      {
        timeoutMs: 20_000,
        description: "the three clicks counted",
      },
    );
    const json = await kurz(["stats", "cli-stats", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.total_clicks).toBe(3);
    expect(report.daily).toHaveLength(30);
    expect(report.daily.reduce((sum: number, d: { count: number }) => sum + d.count, 0)).toBe(3);
    expect(report.referrers[0]).toMatchObject({ count: 2 });
    const text = await kurz(["stats", "cli-stats"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("Clicks, last 30 days: 3");
    expect(text.stdout).toMatch(/\d{4}-\d\d-\d\d [ ▁▂▃▄▅▆▇█]{30} \d{4}-\d\d-\d\d/);
    expect(text.stdout).toContain("█");
    expect(text.stdout).toMatch(/Top referrers:\n\s+2\s+\S*news\.example\.org/);
  });

  it("writes a link's QR code to a file", async () => {
    const out = join(home, "code.png");
    const ran = await kurz(["qr", "cli-docs", "--out", out, "--size", "200"]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^Wrote .*code\.png \(png, \d+ bytes\)\n$/);
    expect((await readFile(out)).subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
    expect((await kurz(["qr", "no-such-code", "--out", out])).code).toBe(4);
  });

  it("takes KURZ_HOST and KURZ_API_KEY over the profile, and refuses a profile others may read", async () => {
    await chmod(profile(), 0o644);
    const unsafe = await kurz(["links", "ls"]);
    expect(unsafe.code).toBe(3);
    expect(unsafe.stderr).toContain("chmod 600");
    const fromEnv = await kurz(["links", "ls", "--json"], {
      env: { KURZ_HOST: bed.stack.origin, KURZ_API_KEY: key },
    });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(Array.isArray(JSON.parse(fromEnv.stdout))).toBe(true);
    await chmod(profile(), 0o600);
    const badKey = await kurz(["links", "ls"], {
      env: { KURZ_API_KEY: "kurz_live_00000000000000000000000000000000" },
    });
    expect(badKey.code).toBe(3);
  });
});
