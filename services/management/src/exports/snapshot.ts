// The continuity snapshot (docs/continuity.md): an account's links as a redirect set that nginx, Caddy or
// any static host serves without Kurz. What each link answers is decided once here (snapshotAnswers),
// from the same facts the redirect reads (services/redirect/src/answer-link.ts); the renderers only
// spell those answers in each server's syntax.
import type { KeyObject } from "node:crypto";
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { CODE_PATTERN, toLocation } from "@kurz/contracts";
import type { Link, PrismaClient } from "@kurz/db";
import { accountLinks } from "./links-export.ts";
import { holdsSnapshotOnly, manifestOf } from "./snapshot-manifest.ts";
import { SIGNATURE_FILE, signManifest } from "./snapshot-signature.ts";

export { manifestOf, sha256 } from "./snapshot-manifest.ts";

export const SNAPSHOT_FORMATS = ["nginx", "caddy", "static"] as const;
export type SnapshotFormat = (typeof SNAPSHOT_FORMATS)[number];

/**
 * What a code answers in the snapshot: a redirect (with the visit's query appended when `query`), 410
 * for an expired link without an expired_url, or the "unavailable" page for a password-protected link.
 * A code with no answer is 404.
 */
export type SnapshotAnswer =
  | { kind: "redirect"; location: string; query: boolean }
  | { kind: "gone" }
  | { kind: "password" };

export interface SnapshotEntry {
  code: string;
  answer: SnapshotAnswer;
  /** The hosts that serve it: its branded domain alone, or the public host and every verified domain. */
  hosts: string[];
}

export interface SnapshotInput {
  /** The host of PUBLIC_BASE_URL (with its port when it has one). */
  publicHost: string;
  /** The account's verified branded domains. */
  domains: { id: number; host: string }[];
  links: Pick<
    Link,
    | "shortCode"
    | "originalUrl"
    | "isActive"
    | "expiresAt"
    | "passwordHash"
    | "domainId"
    | "forwardQuery"
    | "expiredUrl"
  >[];
  /** Export time: a link whose expires_at is at or before it is expired. */
  now: Date;
}

/** Every code the snapshot serves, in the order given, with its answer and hosts. */
export function snapshotAnswers(input: SnapshotInput): SnapshotEntry[] {
  const domainHosts = new Map(input.domains.map((d) => [d.id, d.host]));
  const everyHost = [input.publicHost, ...input.domains.map((d) => d.host)];
  const entries: SnapshotEntry[] = [];
  for (const link of input.links) {
    if (!link.isActive) continue;
    // A code becomes a path in server syntax and a folder name: only the characters codes are made of
    // ever get there, whatever a row from an older import might hold.
    if (!CODE_PATTERN.test(link.shortCode)) continue;
    let hosts = everyHost;
    if (link.domainId !== null) {
      // A link on a domain that is not verified is served nowhere, as by the redirect.
      const host = domainHosts.get(link.domainId);
      if (host === undefined) continue;
      hosts = [host];
    }
    entries.push({ code: link.shortCode, answer: answerOf(link, input.now), hosts });
  }
  return entries;
}

function answerOf(link: SnapshotInput["links"][number], now: Date): SnapshotAnswer {
  if (link.expiresAt !== null && link.expiresAt.getTime() <= now.getTime()) {
    return link.expiredUrl
      ? { kind: "redirect", location: toLocation(link.expiredUrl), query: false }
      : { kind: "gone" };
  }
  if (link.passwordHash !== null) return { kind: "password" };
  // Rules, split and app links need the visitor: the snapshot sends everyone to the link's own URL.
  // The visit's query is appended only where no merge is needed (a destination with no query or fragment).
  const location = toLocation(link.originalUrl);
  return { kind: "redirect", location, query: link.forwardQuery && !/[?#]/.test(location) };
}

/** Reads the account's links and verified domains: the snapshot's input. */
export async function readSnapshotInput(
  prisma: PrismaClient,
  accountId: string,
  baseUrl: string,
  now: Date,
): Promise<SnapshotInput> {
  const domains = await prisma.domain.findMany({
    where: { accountId, status: "verified" },
    select: { id: true, host: true },
    orderBy: { id: "asc" },
  });
  const links = [];
  for await (const link of accountLinks(prisma, accountId)) links.push(link);
  return { publicHost: new URL(baseUrl).host, domains, links, now };
}

export const GONE_TEXT = "This short link has expired.\n";
export const UNAVAILABLE_TEXT =
  "This short link is password-protected and unavailable while its service is down. Please try again later.\n";

export interface RenderOptions {
  /** The redirects' status: REDIRECT_STATUS (301, 302, 307 or 308). */
  status: number;
  /** What every server block (nginx) or site (Caddy) listens on: a port, or address:port. */
  listen?: string;
}

// biome-ignore lint/suspicious/noTemplateCurlyInString: nginx's syntax for the variable, not a template
const DOLLAR = "${kurz_dollar}";
/**
 * nginx's double-quoted string: `"`, `\` and newlines escaped, and `$` (which nginx would read as a
 * variable) taken from a variable holding it; `variables` (nginx's own) are appended as they are.
 */
const nginxString = (s: string, variables = "") =>
  `"${s
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(/\n/g, "\\n")
    .replace(/\$/g, () => DOLLAR)}${variables}"`;

/** A server_name: the host without its port (nginx matches the Host header's name only). */
const hostName = (host: string) =>
  host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0]!;

/**
 * One server block per host, one exact `location = /code` per code it serves. Not a `map`: nginx matches
 * a map's strings ignoring case, and codes are case-sensitive (`Abc` and `abc` are two links); exact
 * locations compare case-sensitively and are looked up in a tree, not one by one.
 */
export function renderNginx(
  entries: SnapshotEntry[],
  hosts: string[],
  opts: RenderOptions,
): Map<string, string> {
  const listen = opts.listen ?? "80";
  const lines: string[] = [
    "# Kurz continuity snapshot (docs/continuity.md), for nginx's http context. Generated; do not edit.",
    "# The request id is logged so the clicks served here can be replayed into Kurz's analytics.",
    `log_format kurz_snapshot escape=json '{"request_id":"$request_id","time":"$time_iso8601","msec":"$msec","method":"$request_method","host":"$host","uri":"$request_uri","status":"$status","location":"$sent_http_location","referer":"$http_referer","user_agent":"$http_user_agent","remote_addr":"$remote_addr"}';`,
    // nginx has no escape for `$` in a string: a geo value is never read for variables, so this holds a literal one.
    'geo $kurz_dollar { default "$"; }',
    "",
  ];
  const answer = (a: SnapshotAnswer) => {
    if (a.kind === "redirect")
      return `return ${opts.status} ${nginxString(a.location, a.query ? "$is_args$args" : "")};`;
    if (a.kind === "gone") return `return 410 ${nginxString(GONE_TEXT)};`;
    return `return 503 ${nginxString(UNAVAILABLE_TEXT)};`;
  };
  for (const host of hosts) {
    lines.push(
      "server {",
      `  listen ${listen};`,
      `  server_name ${hostName(host)};`,
      "  server_tokens off;",
      "  default_type text/plain;",
      "  access_log logs/kurz-snapshot-access.log kurz_snapshot;",
      '  location / { return 404 "Not found.\\n"; }',
    );
    for (const e of entries) {
      if (e.hosts.includes(host))
        lines.push(`  location = ${nginxString(`/${e.code}`)} { ${answer(e.answer)} }`);
    }
    lines.push("}", "");
  }
  lines.push(
    "# Any other host: not found.",
    "server {",
    `  listen ${listen} default_server;`,
    "  server_tokens off;",
    "  default_type text/plain;",
    '  return 404 "Not found.\\n";',
    "}",
    "",
  );
  const standalone = [
    "# A whole nginx configuration serving the snapshot: nginx -p PREFIX -c THIS_FILE (PREFIX holds logs/).",
    "worker_processes 1;",
    "error_log stderr;",
    "pid logs/nginx.pid;",
    "events {}",
    "http {",
    "  include kurz-snapshot.conf;",
    "}",
    "",
  ];
  return new Map([
    ["kurz-snapshot.conf", lines.join("\n")],
    ["nginx.conf", standalone.join("\n")],
  ]);
}

/**
 * A site block per host. Caddy's `path` matcher ignores case, and codes are case-sensitive, so each
 * code gets a `path_regexp` anchored at both ends (codes hold only `A-Za-z0-9_-`, nothing a regexp
 * reads specially). A forwarding link's visit query is appended by a second matcher that also requires
 * a query: Debian's Caddy (2.6) has no `{?query}`, and `?{query}` alone would leave a bare `?`. `route`
 * keeps the directives in the order written. A Location stands bare: toLocation leaves no space, quote,
 * brace or backslash in it. With `listen`, every site is plain HTTP on that port (`http://host:port`,
 * `bind` for an address), with a catch-all 404 for any other host; without it, the sites use Caddy's
 * automatic HTTPS.
 */
export function renderCaddy(
  entries: SnapshotEntry[],
  hosts: string[],
  opts: RenderOptions,
): Map<string, string> {
  const lines = ["# Kurz continuity snapshot (docs/continuity.md). Generated; do not edit.", ""];
  const listen = opts.listen ? caddyListen(opts.listen) : null;
  const head = (address: string) => [`${address} {`, ...(listen?.bind ? [`\tbind ${listen.bind}`] : [])];
  for (const host of hosts) {
    lines.push(...head(listen ? `http://${hostName(host)}:${listen.port}` : host), "\tlog", "\troute {");
    entries
      .filter((x) => x.hosts.includes(host))
      .forEach((e, i) => {
        const a = e.answer;
        const path = `path_regexp ^/${e.code}$`;
        lines.push(`\t\t@c${i} ${path}`);
        if (a.kind === "redirect") {
          if (a.query) {
            lines.push(
              `\t\t@c${i}q {`,
              `\t\t\t${path}`,
              '\t\t\texpression `{query} != ""`',
              "\t\t}",
              `\t\tredir @c${i}q ${a.location}?{query} ${opts.status}`,
            );
          }
          lines.push(`\t\tredir @c${i} ${a.location} ${opts.status}`);
        } else if (a.kind === "gone")
          lines.push(`\t\trespond @c${i} ${JSON.stringify(GONE_TEXT.trim())} 410`);
        else lines.push(`\t\trespond @c${i} ${JSON.stringify(UNAVAILABLE_TEXT.trim())} 503`);
      });
    lines.push('\t\trespond "Not found." 404', "\t}", "}", "");
  }
  if (listen)
    lines.push(
      "# Any other host: not found.",
      ...head(`http://:${listen.port}`),
      '\trespond "Not found." 404',
      "}",
      "",
    );
  return new Map([["Caddyfile", lines.join("\n")]]);
}

/** `--listen` (a port, `address:port` or `[v6]:port`) as Caddy's site port and `bind` address. */
function caddyListen(listen: string): { port: string; bind: string | null } {
  const at = listen.lastIndexOf(":");
  if (at === -1) return { port: listen, bind: null };
  return { port: listen.slice(at + 1), bind: listen.slice(0, at).replace(/^\[|\]$/g, "") };
}

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
const html = (s: string) => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

const page = (title: string, head: string, body: string) =>
  `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="robots" content="noindex">\n${head}<title>${html(title)}</title>\n</head>\n<body>\n${body}\n</body>\n</html>\n`;

/** One page per code, and a `_redirects` file (Netlify, Cloudflare Pages) with the real statuses. */
export function renderStatic(entries: SnapshotEntry[], opts: RenderOptions): Map<string, string> {
  const files = new Map<string, string>();
  const redirects = ["# Kurz continuity snapshot (docs/continuity.md). Generated; do not edit."];
  for (const e of entries) {
    const a = e.answer;
    if (a.kind === "redirect") {
      const to = html(a.location);
      files.set(
        `${e.code}/index.html`,
        page(
          "Redirecting",
          `<meta http-equiv="refresh" content="0; url=${to}">\n<link rel="canonical" href="${to}">\n`,
          `<p>This link goes to <a href="${to}">${to}</a>.</p>`,
        ),
      );
      redirects.push(`/${e.code} ${a.location} ${opts.status}`);
    } else if (a.kind === "gone") {
      files.set(`${e.code}/index.html`, page("Link expired", "", `<p>${html(GONE_TEXT.trim())}</p>`));
      redirects.push(`/${e.code} /${e.code}/index.html 410`);
    } else {
      files.set(
        `${e.code}/index.html`,
        page("Link unavailable", "", `<p>${html(UNAVAILABLE_TEXT.trim())}</p>`),
      );
      redirects.push(`/${e.code} /${e.code}/index.html 503`);
    }
  }
  files.set("_redirects", `${redirects.join("\n")}\n`);
  return files;
}

export function renderSnapshot(
  format: SnapshotFormat,
  input: SnapshotInput,
  opts: RenderOptions,
): Map<string, string> {
  const entries = snapshotAnswers(input);
  const hosts = [input.publicHost, ...input.domains.map((d) => d.host)];
  if (format === "nginx") return renderNginx(entries, hosts, opts);
  if (format === "caddy") return renderCaddy(entries, hosts, opts);
  return renderStatic(entries, opts);
}

/**
 * Writes the files, their manifest.json and its signature (when given) into `dir`, which must be new,
 * empty, or hold a previous snapshot and nothing else (holdsSnapshotOnly). A previous snapshot is
 * replaced whole: the new set is written into a sibling folder, then the two are swapped by two
 * renames, so a web server reading the folder never sees a half-written set (only, for the instant
 * between the renames, no folder). Anything else is refused before anything is written.
 */
export function writeSnapshot(
  dir: string,
  files: Map<string, string>,
  manifest: string,
  signature?: string,
): void {
  const all = new Map(files);
  all.set("manifest.json", manifest);
  if (signature !== undefined) all.set(SIGNATURE_FILE, signature);
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw new Error(`--out ${dir} is not a directory`);
    if (readdirSync(dir).length > 0) {
      if (!holdsSnapshotOnly(dir))
        throw new Error(
          `--out ${dir} is not empty and holds no snapshot of its own (a manifest.json listing every file in it); give an empty or new directory, or a previous snapshot's (nothing was written)`,
        );
      replaceSnapshot(dir, all);
      return;
    }
  } else {
    ensureCreatable(dir);
    mkdirSync(dir, { recursive: true });
  }
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw new Error(`--out ${dir} is not writable (nothing was written)`);
  }
  writeAll(dir, all);
}

/** Throws unless `dir`'s nearest existing ancestor is a writable folder. */
function ensureCreatable(dir: string): void {
  let parent = dirname(dir);
  while (!existsSync(parent) && dirname(parent) !== parent) parent = dirname(parent);
  if (!statSync(parent).isDirectory())
    throw new Error(`--out ${dir} cannot be created: ${parent} is not a directory (nothing was written)`);
  try {
    accessSync(parent, constants.W_OK);
  } catch {
    throw new Error(`--out ${dir} cannot be created: ${parent} is not writable (nothing was written)`);
  }
}

function writeAll(dir: string, files: Map<string, string>): void {
  for (const [path, content] of files) {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
}

/** Writes the set beside `dir`, then swaps it in and removes the previous one. */
function replaceSnapshot(dir: string, files: Map<string, string>): void {
  const parent = dirname(dir);
  try {
    accessSync(parent, constants.W_OK);
  } catch {
    throw new Error(
      `--out ${dir} holds a previous snapshot, but ${parent} is not writable: a refresh writes the new set beside it (nothing was written)`,
    );
  }
  const next = mkdtempSync(join(parent, `.${basename(dir)}.next-`));
  try {
    // mkdtemp's folder is private (0700); the web server's workers must read it as they read the old one.
    chmodSync(next, statSync(dir).mode & 0o7777);
    writeAll(next, files);
  } catch (err) {
    rmSync(next, { recursive: true, force: true });
    throw err;
  }
  // Named after `next`, which mkdtemp made unique: no other refresh uses the name.
  const previous = `${next}.previous`;
  renameSync(dir, previous);
  renameSync(next, dir);
  rmSync(previous, { recursive: true, force: true });
}

/** The whole export: read, render, write. Returns the number of codes served. */
export async function exportSnapshot(
  prisma: PrismaClient,
  opts: {
    accountId: string;
    baseUrl: string;
    format: SnapshotFormat;
    out: string;
    now: Date;
    status: number;
    listen?: string;
    /** An Ed25519 private key: manifest.json is signed into manifest.json.sig. */
    signKey?: KeyObject;
  },
): Promise<{ links: number; files: number }> {
  const input = await readSnapshotInput(prisma, opts.accountId, opts.baseUrl, opts.now);
  const files = renderSnapshot(opts.format, input, {
    status: opts.status,
    ...(opts.listen ? { listen: opts.listen } : {}),
  });
  const links = snapshotAnswers(input).length;
  const manifest = manifestOf(files, { format: opts.format, generatedAt: opts.now, links });
  const signature = opts.signKey ? signManifest(manifest, opts.signKey) : undefined;
  writeSnapshot(opts.out, files, manifest, signature);
  return { links, files: files.size + (signature === undefined ? 1 : 2) };
}
