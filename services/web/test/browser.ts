// Real Chromium for the browser tests: Debian's /usr/bin/chromium (installed by ensure_test_tools in
// infra/local/lib.sh) driven by playwright-core, whose own browser download cannot work here.
// Playwright gives every launch a fresh temporary user-data-dir. Axe-core is evaluated in the page
// through the DevTools protocol, so the page's strict CSP stays on (no inline script is injected).
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import type { TestDnsServer } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { useStack, useTestDnsServer } from "@kurz/testing/use-stack";
import { type Browser, type BrowserContext, type ConsoleMessage, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { buildWeb } from "../../../infra/build/web.ts";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  // V8 in the pages stops at its baseline compiler (Sparkplug): the dashboard's scripts and axe-core
  // run for a fraction of a second per document, too briefly for the optimising tiers to repay their
  // compiling (the dashboard's tests: about 5-10 % less Chromium CPU, docs/benchmarks/2026-12.md).
  "--js-flags=--max-opt=1",
];

/** A browser's User-Agent as a visitor's phone or laptop sends it: HeadlessChrome counts as a bot. */
export const VISITOR_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS, timeout: 60_000 });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Axe-core's serious and critical violations on the page as it is now. */
export async function seriousViolations(
  page: Page,
): Promise<{ id: string; help: string; targets: string[] }[]> {
  // Axe's 550 KB of source go to a document once, not with every check of it.
  if (!(await page.evaluate("Boolean(window.axe)"))) await page.evaluate(`(() => { ${axeSource}\n })()`);
  const violations = (await page.evaluate(
    `window.axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)`,
  )) as AxeViolation[];
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, help: v.help, targets: v.nodes.flatMap((n) => n.target).slice(0, 5) }));
}

export const SHOTS = resolve(import.meta.dirname, "../../../docs/dashboard");

/**
 * Full-page screenshots at desktop and phone width: docs/dashboard/<name>-desktop.png and -phone.png.
 * At phone width the page is checked as well: what axe-core finds serious or critical there (a layout
 * of its own, with its own contrast and hidden parts), and whether anything makes the page scroll
 * sideways (a table wider than the screen). The caller asserts both are empty.
 */
export async function screenshots(
  page: Page,
  name: string,
): Promise<{ phoneViolations: Awaited<ReturnType<typeof seriousViolations>>; phoneOverflow: string[] }> {
  mkdirSync(SHOTS, { recursive: true });
  let phoneViolations: Awaited<ReturnType<typeof seriousViolations>> = [];
  let phoneOverflow: string[] = [];
  for (const [label, size] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const) {
    await page.setViewportSize(size);
    // From the top: scrolled down, the sticky bar would be photographed in the middle of the page.
    await page.evaluate("window.scrollTo(0, 0)");
    // The pointer off every control: at the other width, what it rests on would be photographed hovered.
    await page.mouse.move(0, 0);
    await framesDrawn(page);
    if (label === "phone") {
      phoneViolations = await seriousViolations(page);
      phoneOverflow = await sidewaysScroll(page);
    }
    await page.screenshot({
      path: join(SHOTS, `${name}-${label}.png`),
      fullPage: true,
      animations: "disabled",
      caret: "hide",
    });
  }
  await page.setViewportSize(DESKTOP);
  return { phoneViolations, phoneOverflow };
}

/**
 * Resolves once the page has drawn two more frames: what a resize set off is on screen by then (the
 * chart redraws from its ResizeObserver, which runs before the next paint, in a microtask of it).
 */
function framesDrawn(page: Page): Promise<unknown> {
  return page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))");
}

/**
 * The page as it is now passes: axe-core finds nothing serious or critical at desktop and phone width,
 * nothing scrolls sideways at phone width; both screenshots are taken (as `name`).
 */
export async function checkPage(page: Page, name: string): Promise<void> {
  await page.waitForLoadState("networkidle");
  expect(await seriousViolations(page), `axe on ${name}`).toEqual([]);
  const phone = await screenshots(page, name);
  expect(phone.phoneViolations, `axe on ${name} at phone width`).toEqual([]);
  expect(phone.phoneOverflow, `${name} scrolls sideways at phone width`).toEqual([]);
}

/** A page reports its Content Security Policy violations in the console; each is pushed to `into`. */
export function watchCsp(page: Page, into: string[]): void {
  page.on("console", (m: ConsoleMessage) => {
    if (m.type() === "error" && /Content Security Policy/i.test(m.text())) into.push(m.text());
  });
}

/**
 * What the dashboard's stories run against, started once for all of them: the dashboard built, a stack
 * inside the test's process whose services resolve names through `dns`, and one Chromium. Each story
 * opens its own contexts (`newOwner`) and signs up accounts of its own, so none sees another's data.
 */
export interface BrowserFixture {
  readonly stack: Stack;
  readonly dns: TestDnsServer;
  readonly browser: Browser;
  /** The operators' credential of this stack (management's ADMIN_TOKEN). */
  readonly adminToken: string;
  /** An owner's desktop context on the stack's origin: the clipboard allowed, 15 s for each step. */
  newOwner(): Promise<BrowserContext>;
}

/**
 * Starts the fixture in beforeAll and stops it in afterAll (Chromium first, then the stack, then the
 * DNS server). The stack runs in-process: every story reaches it through its public origin, as a
 * browser does, and none is about the services' processes. Loopback is an allowed webhook host
 * (WEBHOOK_ALLOW_HOSTS), for a receiver of the test's own, and an allowed fetch (TITLE_FETCH_ALLOW_HOSTS),
 * for a link destination of the test's own that health checks reach. `extraEnv` is read when the stack starts
 * (after earlier beforeAll hooks, such as one starting an OpenID Connect provider).
 */
export function useBrowserStack(extraEnv: () => Record<string, string> = () => ({})): BrowserFixture {
  const dns = useTestDnsServer();
  const adminToken = randomBytes(32).toString("hex");
  const started = useStack(() =>
    startStack({
      inProcess: true,
      extraEnv: {
        DNS_SERVERS: dns().address,
        WEBHOOK_ALLOW_HOSTS: "127.0.0.1",
        TITLE_FETCH_ALLOW_HOSTS: "127.0.0.1",
        ...extraEnv(),
      },
      serviceEnv: { management: { ADMIN_TOKEN: adminToken } },
    }),
  );
  let browser: Browser | undefined;
  beforeAll(async () => {
    // The gateway reads dist on the first request for a page, after this.
    [, browser] = await Promise.all([buildWeb(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    browser = undefined;
  });
  const launched = () => {
    if (!browser) throw new Error("Chromium is not started yet (it starts in beforeAll)");
    return browser;
  };
  return {
    get stack() {
      return started.stack;
    },
    get dns() {
      return dns();
    },
    get browser() {
      return launched();
    },
    adminToken,
    async newOwner() {
      const { origin } = started.stack;
      const owner = await launched().newContext({ viewport: DESKTOP, baseURL: origin });
      await owner.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
      owner.setDefaultTimeout(15_000);
      return owner;
    },
  };
}

/**
 * GETs `path` from the page, with its session: polling this way draws on the account's session budget
 * (600 a minute), not on its key's (60), which the tests' own calls with the key need.
 */
export function getInPage<T>(page: Page, path: string): Promise<{ status: number; body: T }> {
  return page.evaluate(async (p) => {
    const res = await fetch(p);
    return { status: res.status, body: (await res.json()) as T };
  }, path);
}

/**
 * Signs `email` up through the API in the context's cookie jar, so its pages open signed in (the
 * dashboard story covers the sign-up page); the account's first API key.
 */
export async function signUpThroughApi(owner: BrowserContext, email: string): Promise<string> {
  const reg = await owner.request.post("/api/v1/auth/register", {
    data: { email, password: "correct horse battery" },
  });
  expect(reg.status()).toBe(201);
  return ((await reg.json()) as { data: { api_key: { key: string } } }).data.api_key.key;
}

/** A new page of `owner` on the dashboard's overview, its CSP violations pushed to `cspViolations`. */
export async function openDashboard(owner: BrowserContext, cspViolations: string[]): Promise<Page> {
  const page = await owner.newPage();
  watchCsp(page, cspViolations);
  await page.goto("/dashboard");
  await page.getByRole("heading", { name: "Overview" }).waitFor();
  return page;
}

/** A call to `<the stack's origin><path>` with an API key, as a script makes it; a body goes as JSON. */
export function fetchWithKey(
  web: BrowserFixture,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${web.stack.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

/** The API with the key `key()` answers, as a script sees it: each call must succeed; its `data`. */
export function keyApi(web: BrowserFixture, key: () => string) {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetchWithKey(web, key(), method, path, body);
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return ((await res.json()) as { data: T }).data;
  };
}

/**
 * What scrolls sideways: the page itself, or a table card or dialog whose content is wider than it
 * (each named by tag and class).
 */
export async function sidewaysScroll(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const name = (e) => e.tagName.toLowerCase() + (e.className ? "." + String(e.className).split(" ").join(".") : "");
    const wide = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth + 1) wide.push("page (" + root.scrollWidth + "px wide)");
    for (const e of document.querySelectorAll(".table-card, .card, dialog, .dialog")) {
      if (e.scrollWidth > e.clientWidth + 1) wide.push(name(e) + " (" + e.scrollWidth + " > " + e.clientWidth + "px)");
    }
    return wide;
  })()`)) as string[];
}

/**
 * Opens a dashboard page as a person does at desktop width: a section from the top bar, a settings page
 * (account, security, members, API keys, domains, webhooks, import, export) through "Settings" and then the
 * settings list.
 */
export async function openPage(page: Page, label: string): Promise<void> {
  const top = page.getByRole("navigation", { name: "Dashboard" });
  if (SETTINGS_PAGES.includes(label)) {
    await top.getByRole("link", { name: "Settings" }).click();
    await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: label }).click();
  } else {
    await top.getByRole("link", { name: label }).click();
  }
}
const SETTINGS_PAGES = [
  "Account",
  "Security",
  "General",
  "Members",
  "Audit log",
  "API keys",
  "Domains",
  "Webhooks",
  "Import",
  "Export",
  "Single sign-on",
];
