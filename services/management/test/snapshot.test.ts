// The continuity snapshot (docs/continuity.md) against the real Postgres: links of every kind exported
// as nginx, then served by Debian's real nginx, which must answer every code on every host as the
// redirect's rules say (services/redirect/src/answer-link.ts) and as Kurz's own redirect answers; the
// Caddyfile likewise under Debian's Caddy. The static folder is checked as text, the manifest's hashes
// against the files on disk, and `./kurz export` refuses a non-empty --out.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { once } from "node:events";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { redirectKey, toLocation } from "@kurz/contracts";
import { createPrisma, type PrismaClient } from "@kurz/db";
import { getFreePort, type TestDatabase, waitFor } from "@kurz/testing";
import { cliNodeArgs, ensureBundles } from "@kurz/testing/bundles";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedirectFixture } from "../../redirect/test/support/redirect-fixture.ts";
import { exportSnapshot, sha256 } from "../src/exports/snapshot.ts";
import { verifySnapshot } from "../src/exports/verify-snapshot.ts";
import { toRedirectRecord } from "../src/projections/link-records.ts";
import { createTestAccount } from "./links-helpers.ts";

const NGINX = "/usr/sbin/nginx";
const CADDY = "/usr/bin/caddy";
const NOW = new Date("2030-06-01T12:00:00.000Z");
const PUBLIC = "short.test";
const BRANDED = "go.brand.test";
const UNVERIFIED = "pending.brand.test";

let database: TestDatabase;
let prisma: PrismaClient;
let accountId: string;
const dirs: string[] = [];
const tmp = (tag: string) => {
  const dir = mkdtempSync(join(tmpdir(), `kurz-snapshot-${tag}-`));
  dirs.push(dir);
  return dir;
};

/** What Kurz answers for a code on a host, as the snapshot keeps it: a status and a Location (or none). */
type Expected = { status: number; location?: string };
interface Seeded {
  code: string;
  url: string;
  fields?: Record<string, unknown>;
  /** Per host: the expected answer; a host not named answers 404. */
  on: Partial<Record<string, Expected>>;
  /** A query the visit carries, for a forwarding link. */
  query?: string;
  /** Answered differently by Kurz on purpose (docs/continuity.md): not compared with the redirect. */
  degrades?: true;
}

// biome-ignore lint/suspicious/noTemplateCurlyInString: a destination nginx must not read as variables
const DOLLARS = "https://example.com/$uri/${host}?v=$args&w=$1";
const redirect = (url: string): Expected => ({ status: 302, location: toLocation(url) });
const everywhere = (e: Expected) => ({ [PUBLIC]: e, [BRANDED]: e });

let seeded: Seeded[] = [];
let brandedId = 0;

beforeAll(async () => {
  database = await createMigratedDatabase("snapshot");
  prisma = createPrisma(database.url);
  const account = await createTestAccount(prisma, "snapshot");
  accountId = account.account_id;
  const branded = await prisma.domain.create({
    data: { accountId, host: BRANDED, origin: `https://${BRANDED}`, status: "verified" },
  });
  brandedId = branded.id;
  const pending = await prisma.domain.create({
    data: { accountId, host: UNVERIFIED, origin: `https://${UNVERIFIED}`, status: "pending" },
  });
  // Far from any real date, so the real redirect (which reads its own clock) agrees with NOW.
  const past = new Date("2001-01-01T00:00:00.000Z");
  const future = new Date("2999-01-01T00:00:00.000Z");
  seeded = [
    {
      code: "plain",
      url: "https://example.com/plain",
      fields: { forwardQuery: false },
      on: everywhere(redirect("https://example.com/plain")),
    },
    {
      code: "fwd",
      url: "https://example.com/fwd",
      query: "utm_source=news&x=%24y",
      on: everywhere({ status: 302, location: "https://example.com/fwd?utm_source=news&x=%24y" }),
    },
    {
      // A destination with a query of its own would need Kurz's merge: the visit's query is dropped.
      code: "fwd-merged",
      url: "https://example.com/page?utm_source=site#top",
      query: "utm_medium=mail",
      degrades: true,
      on: everywhere(redirect("https://example.com/page?utm_source=site#top")),
    },
    {
      code: "gone",
      url: "https://example.com/old",
      fields: { expiresAt: past },
      on: everywhere({ status: 410 }),
    },
    {
      code: "gone-to",
      url: "https://example.com/old",
      fields: { expiresAt: past, expiredUrl: "https://example.com/sorry?why=expired" },
      on: everywhere(redirect("https://example.com/sorry?why=expired")),
    },
    {
      code: "later",
      url: "https://example.com/later",
      fields: { expiresAt: future },
      on: everywhere(redirect("https://example.com/later")),
    },
    {
      code: "secret",
      url: "https://example.com/secret",
      fields: { passwordHash: "scrypt$x" },
      degrades: true,
      on: everywhere({ status: 503 }),
    },
    {
      code: "smart",
      url: "https://example.com/default",
      degrades: true,
      fields: {
        rules: [{ when: { country: ["DE"] }, url: "https://example.de/" }],
        split: [
          { url: "https://a.example/", weight: 1 },
          { url: "https://b.example/", weight: 1 },
        ],
        iosUrl: "https://apps.apple.com/app/id1",
        forwardQuery: false,
      },
      on: everywhere(redirect("https://example.com/default")),
    },
    {
      code: "branded",
      url: "https://example.com/b",
      fields: { domainId: branded.id },
      on: { [BRANDED]: redirect("https://example.com/b") },
    },
    { code: "pending-dom", url: "https://example.com/p", fields: { domainId: pending.id }, on: {} },
    { code: "off", url: "https://example.com/off", fields: { isActive: false }, on: {} },
    {
      code: "quotes",
      url: `https://example.com/say "hi" it's;ok {x}\\y?q=a b&c="d"`,
      fields: { forwardQuery: false },
      on: everywhere(redirect(`https://example.com/say "hi" it's;ok {x}\\y?q=a b&c="d"`)),
    },
    {
      code: "dollar",
      url: DOLLARS,
      on: everywhere(redirect(DOLLARS)),
    },
    {
      code: "dollar-fwd",
      url: "https://example.com/cost$5",
      query: "a=1",
      on: everywhere({ status: 302, location: "https://example.com/cost$5?a=1" }),
    },
    // Two codes that differ only in case: two links (nginx's and Caddy's case-blind matchers would merge them).
    { code: "Case", url: "https://example.com/upper", on: everywhere(redirect("https://example.com/upper")) },
    { code: "case", url: "https://example.com/lower", on: everywhere(redirect("https://example.com/lower")) },
    {
      code: "idn_1",
      url: "https://bücher.example/straße?q=ü",
      on: everywhere(redirect("https://bücher.example/straße?q=ü")),
    },
  ];
  for (const s of seeded) {
    await prisma.link.create({
      data: { accountId, shortCode: s.code, originalUrl: s.url, title: s.code, ...(s.fields ?? {}) },
    });
  }
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => relative(dir, join(d.parentPath, d.name)))
    .sort();

async function exportTo(format: "nginx" | "caddy" | "static", listen?: string) {
  const out = join(tmp(format), "out");
  const result = await exportSnapshot(prisma, {
    accountId,
    baseUrl: `https://${PUBLIC}`,
    format,
    out,
    now: NOW,
    status: 302,
    ...(listen ? { listen } : {}),
  });
  return { out, result };
}

function expectManifest(out: string) {
  const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
  expect(manifest.generated_at).toBe(NOW.toISOString());
  const onDisk = filesUnder(out).filter((f) => f !== "manifest.json");
  expect(manifest.files.map((f: { path: string }) => f.path)).toEqual(onDisk);
  for (const f of manifest.files as { path: string; sha256: string; bytes: number }[]) {
    const bytes = readFileSync(join(out, f.path));
    expect(f.sha256).toBe(sha256(bytes));
    expect(f.bytes).toBe(bytes.length);
  }
  return manifest;
}

/** GET path on host through nginx on port: its status and Location. */
const get = (port: number, host: string, path: string) =>
  new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { host } }, (res) => {
      res.resume();
      const location = res.headers.location;
      res.on("end", () => resolve({ status: res.statusCode!, location }));
    });
    req.on("error", reject);
    req.end();
  });

/** Every seeded code on every host, through the server on `port`: the answers the table gives. */
async function expectEveryCode(port: number) {
  const seen: string[] = [];
  for (const s of seeded) {
    for (const host of [PUBLIC, BRANDED, UNVERIFIED, "elsewhere.test"]) {
      const want = s.on[host] ?? { status: 404 };
      const got = await get(port, host, `/${s.code}${s.query ? `?${s.query}` : ""}`);
      seen.push(`${s.code}@${host}`);
      expect({ code: s.code, host, ...got }, `${s.code} on ${host}`).toEqual({
        code: s.code,
        host,
        status: want.status,
        location: want.location,
      });
    }
  }
  expect(seen).toHaveLength(seeded.length * 4);
}

/**
 * Kurz's own redirect service on the same links (the records management writes, in Redis), against
 * the server on `port`: the same status and Location for every code that does not degrade, on each host.
 */
async function expectSameAsKurz(port: number) {
  const kurz = await startRedirectFixture({
    name: "snapshot",
    fromSource: true,
    env: { PUBLIC_BASE_URL: `http://${PUBLIC}`, REDIRECT_STATUS: "302" },
  });
  try {
    // The verified domain as management resolves it.
    kurz.mgmt.domains.set(BRANDED, {
      id: brandedId,
      account_id: accountId,
      redirect_root: null,
      redirect_404: null,
    });
    for (const link of await prisma.link.findMany({ where: { accountId } })) {
      await kurz.redis.set(redirectKey(link.shortCode), JSON.stringify(toRedirectRecord(link)));
    }
    const kurzPort = Number(new URL(kurz.redirect.url).port);
    let compared = 0;
    for (const s of seeded.filter((x) => !x.degrades)) {
      for (const host of [PUBLIC, BRANDED, UNVERIFIED]) {
        const path = `/${s.code}${s.query ? `?${s.query}` : ""}`;
        const fromKurz = await get(kurzPort, host, path);
        const fromServer = await get(port, host, path);
        expect({ code: s.code, host, ...fromServer }, `${s.code} on ${host}`).toEqual({
          code: s.code,
          host,
          ...fromKurz,
        });
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(30);
  } finally {
    await kurz.stop();
  }
}

/** Starts `cmd`, then waits until the server on `port` answers; its stderr is in the error otherwise. */
async function startServer(cmd: string, args: string[], port: number, env?: NodeJS.ProcessEnv) {
  let stderr = "";
  const child = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"], ...(env ? { env } : {}) });
  child.stderr?.on("data", (d) => {
    stderr += String(d);
  });
  await waitFor(
    () =>
      get(port, PUBLIC, "/").then(
        () => true,
        () => false,
      ),
    { timeoutMs: 10_000, description: `${cmd} serving the snapshot` },
  ).catch((err: unknown) => {
    throw new Error(`${cmd} did not start: ${stderr}`, { cause: err });
  });
  return child;
}

async function stopServer(child: ChildProcess | undefined) {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    await exited;
  }
}

/** What a web server serving a snapshot on `port()` must answer: every code as Kurz's rules and redirect do. */
function answersAsKurzRulesSay(port: () => number): void {
  it("answers every code on every host with the status and Location Kurz's rules give", () =>
    expectEveryCode(port()));

  it(
    "answers as Kurz's own redirect does, given the same links, for every code that does not degrade",
    () => expectSameAsKurz(port()),
    60_000,
  );
}

describe.skipIf(!existsSync(NGINX))("the nginx snapshot under Debian's nginx", () => {
  let nginx: ChildProcess | undefined;
  let port = 0;
  let out = "";

  beforeAll(async () => {
    port = await getFreePort();
    ({ out } = await exportTo("nginx", `127.0.0.1:${port}`));
    const prefix = tmp("prefix");
    // nginx's workers run as an unprivileged user when it is started as root: they must reach the prefix.
    chmodSync(prefix, 0o755);
    mkdirSync(join(prefix, "logs"));
    nginx = await startServer(
      NGINX,
      ["-p", prefix, "-c", join(out, "nginx.conf"), "-e", "stderr", "-g", "daemon off;"],
      port,
    );
  });

  afterAll(() => stopServer(nginx));

  answersAsKurzRulesSay(() => port);

  it("keeps a Location free of anything that is not a URI character, `$` as it was", async () => {
    const got = await get(port, PUBLIC, "/dollar");
    expect(got.location).toBe("https://example.com/$uri/$%7Bhost%7D?v=$args&w=$1");
    expect((await get(port, PUBLIC, "/quotes")).location).toBe(
      // The URL parser reads `\\` as `/` in an http URL, as the redirect does.
      "https://example.com/say%20%22hi%22%20it's;ok%20%7Bx%7D/y?q=a%20b&c=%22d%22",
    );
  });

  it("answers unknown codes 404, and logs each request with its request id", async () => {
    expect((await get(port, PUBLIC, "/nope")).status).toBe(404);
    expect((await get(port, PUBLIC, "/plain/extra")).status).toBe(404);
    const log = join(dirs.find((d) => d.includes("prefix"))!, "logs", "kurz-snapshot-access.log");
    await waitFor(() => existsSync(log) && readFileSync(log, "utf8").includes('"uri":"/nope"'), {
      timeoutMs: 5_000,
      description: "the access log line",
    });
    const line = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((l) => l.uri === "/fwd?utm_source=news&x=%24y");
    expect(line).toMatchObject({
      host: PUBLIC,
      status: "302",
      location: "https://example.com/fwd?utm_source=news&x=%24y",
    });
    expect(line.request_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it("writes a manifest whose hashes match the files", () => {
    const manifest = expectManifest(out);
    expect(manifest.format).toBe("nginx");
    expect(manifest.files.map((f: { path: string }) => f.path)).toEqual(["kurz-snapshot.conf", "nginx.conf"]);
  });
});

describe.skipIf(!existsSync(CADDY))("the Caddy snapshot under Debian's Caddy", () => {
  let caddy: ChildProcess | undefined;
  let port = 0;

  beforeAll(async () => {
    port = await getFreePort();
    const { out } = await exportTo("caddy", `127.0.0.1:${port}`);
    const home = tmp("caddy-home");
    // The operator's own global options around the snapshot: here no admin endpoint (a fixed port).
    const config = join(home, "Caddyfile");
    writeFileSync(config, `{\n\tadmin off\n}\nimport ${join(out, "Caddyfile")}\n`);
    caddy = await startServer(CADDY, ["run", "--config", config, "--adapter", "caddyfile"], port, {
      ...process.env,
      HOME: home,
      XDG_DATA_HOME: home,
      XDG_CONFIG_HOME: home,
    });
  });

  afterAll(() => stopServer(caddy));

  answersAsKurzRulesSay(() => port);
});

describe("the caddy and static snapshots as text", () => {
  it("writes a Caddyfile with a site per host, each code matched with its case", async () => {
    const { out } = await exportTo("caddy");
    const text = readFileSync(join(out, "Caddyfile"), "utf8");
    const site = (host: string) =>
      text.slice(text.indexOf(`\n${host} {`), text.indexOf("\n}\n", text.indexOf(`\n${host} {`)));
    const pub = site(PUBLIC);
    const brand = site(BRANDED);
    expect(pub).toMatch(
      /\t\t@(c\d+) path_regexp \^\/plain\$\n\t\tredir @\1 https:\/\/example.com\/plain 302\n/,
    );
    expect(pub).toMatch(
      /\t\t@(c\d+)q \{\n\t\t\tpath_regexp \^\/fwd\$\n\t\t\texpression `\{query\} != ""`\n\t\t\}\n\t\tredir @\1q https:\/\/example.com\/fwd\?\{query\} 302\n\t\tredir @\1 https:\/\/example.com\/fwd 302\n/,
    );
    expect(pub).toMatch(
      /\t\t@(c\d+) path_regexp \^\/gone\$\n\t\trespond @\1 "This short link has expired." 410\n/,
    );
    expect(pub).toMatch(/\trespond @c\d+ "This short link is password-protected[^"\n]*" 503\n/);
    expect(pub).not.toContain("/branded");
    expect(brand).toContain("path_regexp ^/branded$");
    expect(brand).toContain("path_regexp ^/plain$");
    expect(text).not.toContain(UNVERIFIED);
    expect(text).not.toContain("/pending-dom");
    expect(text).not.toContain("/off$");
    expect(text).toContain(`${toLocation("https://bücher.example/straße?q=ü")} 302\n`);
    // Nothing a Caddyfile would read as a placeholder, a quote or a token break is left in a Location.
    for (const line of text.split("\n").filter((l) => l.startsWith("\t\tredir "))) {
      expect(line.replace("?{query}", "")).toMatch(/^\t\tredir @c\d+q? [^\s"{}\\]+ 302$/);
    }
    expectManifest(out);
  });

  it("writes one HTML page per code and a _redirects file, every value escaped", async () => {
    const { out } = await exportTo("static");
    const redirects = readFileSync(join(out, "_redirects"), "utf8");
    expect(redirects).toContain("\n/plain https://example.com/plain 302\n");
    expect(redirects).toContain("\n/gone /gone/index.html 410\n");
    expect(redirects).toContain("\n/secret /secret/index.html 503\n");
    expect(redirects).toContain("\n/branded https://example.com/b 302\n");
    expect(redirects).not.toContain("/off");
    const quotes = readFileSync(join(out, "quotes", "index.html"), "utf8");
    const href = "https://example.com/say%20%22hi%22%20it&#39;s;ok%20%7Bx%7D/y?q=a%20b&amp;c=%22d%22";
    expect(quotes).toContain(`<meta http-equiv="refresh" content="0; url=${href}">`);
    expect(quotes).toContain(`<link rel="canonical" href="${href}">`);
    expect(quotes).not.toMatch(/<script/i);
    expect(readFileSync(join(out, "gone", "index.html"), "utf8")).toContain("This short link has expired.");
    expect(existsSync(join(out, "off"))).toBe(false);
    const manifest = expectManifest(out);
    expect(manifest.links).toBe(seeded.filter((s) => Object.keys(s.on).length > 0).length);
  });
});

describe("`./kurz export snapshot`", () => {
  // The admin CLI as `./kurz` runs it: its bundle (a start without compiling the workspace again).
  beforeAll(() => ensureBundles());
  const run = (args: string[]) =>
    spawnSync(process.execPath, cliNodeArgs(["export", "--account", accountId, "snapshot", ...args]), {
      env: { ...process.env, DATABASE_URL: database.url, PUBLIC_BASE_URL: `https://${PUBLIC}` },
      encoding: "utf8",
    });

  it("refuses a non-empty --out, writing nothing", () => {
    const out = tmp("busy");
    writeFileSync(join(out, "keep.txt"), "mine");
    const res = run(["--format", "nginx", "--out", out]);
    expect(res.stderr).toMatch(/--out .* is not empty/);
    expect(res.status).not.toBe(0);
    expect(readdirSync(out)).toEqual(["keep.txt"]);
  });

  it("refuses an --out that cannot be a directory, writing nothing", () => {
    const base = tmp("file");
    const file = join(base, "a-file");
    writeFileSync(file, "mine");
    const inside = run(["--format", "nginx", "--out", join(file, "snap")]);
    expect(inside.status).not.toBe(0);
    expect(inside.stderr).toContain("is not a directory (nothing was written)");
    const onto = run(["--format", "nginx", "--out", file]);
    expect(onto.status).not.toBe(0);
    expect(onto.stderr).toContain("is not a directory");
    expect(readdirSync(base)).toEqual(["a-file"]);
    expect(readFileSync(file, "utf8")).toBe("mine");
  });

  it("writes the snapshot into a new directory, and says what it wrote", () => {
    const out = join(tmp("new"), "snap");
    const res = run(["--format", "static", "--out", out]);
    expect(res.status, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout.trim().split("\n").pop()!)).toMatchObject({
      format: "static",
      out,
      signed: false,
    });
    expect(existsSync(join(out, "manifest.json"))).toBe(true);
  });

  it("refreshes a previous snapshot in place, signed with --sign-key; refuses a key that is no Ed25519 key", async () => {
    const dir = tmp("signed");
    const out = join(dir, "snap");
    // The previous snapshot, written in process: the two CLI runs below are what is under test.
    await exportSnapshot(prisma, {
      accountId,
      baseUrl: `https://${PUBLIC}`,
      format: "static",
      out,
      now: NOW,
      status: 302,
    });
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const keyFile = join(dir, "key.pem");
    writeFileSync(keyFile, privateKey.export({ type: "pkcs8", format: "pem" }));
    const rsa = join(dir, "rsa.pem");
    writeFileSync(
      rsa,
      generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ type: "pkcs8", format: "pem" }),
    );
    const refused = run(["--format", "nginx", "--out", out, "--sign-key", rsa]);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain("is a rsa key; an Ed25519 key is needed");
    expect(existsSync(join(out, "_redirects"))).toBe(true);

    const res = run(["--format", "nginx", "--out", out, "--sign-key", keyFile]);
    expect(res.status, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout.trim().split("\n").pop()!)).toMatchObject({ format: "nginx", signed: true });
    expect(readdirSync(out).sort()).toEqual([
      "kurz-snapshot.conf",
      "manifest.json",
      "manifest.json.sig",
      "nginx.conf",
    ]);
    expect(verifySnapshot(out, publicKey)).toMatchObject({ files: 2, problems: [], signature: "valid" });
    expect(readdirSync(dir).sort()).toEqual(["key.pem", "rsa.pem", "snap"]);
  }, 120_000);

  it("asks for a format", () => {
    const res = run(["--out", join(tmp("none"), "x")]);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain("--format must be nginx, caddy or static");
  });
});
