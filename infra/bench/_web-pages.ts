// The dashboard's pages timed in real Chromium with 100,000 links in the account (the budget:
// each page usable within 1 s with 100k links in the account). Part of `./kurz bench web`.
//
// A whole local process stack in production mode, as deployed. The account signs up through the API in
// the browser's cookie jar (a real session); its links are seeded in Postgres directly, as the API
// bench does, with the stored link count set to match (decision 0037). Clicks come through the redirect
// service like anyone's, from a few hundred visitors on a few hundred links, so the overview, the link
// page and the top links have data to draw.
//
// Each page is loaded by a fresh navigation (the whole app boots: session check, page chunk, its API
// calls) and timed from the start of navigation to "usable", which each page defines below: its main
// content rendered (the first table row, the chart drawn, the form filled) and no loading line left.
// One warm-up visit per page loads the assets into the browser cache first, as a returning user has.
import { rmSync } from "node:fs";
import { createPrisma } from "@kurz/db";
import { startStack } from "@kurz/testing/stack";
import { type APIRequestContext, type BrowserContext, chromium, type Page } from "playwright-core";
import { productionEnv } from "./_stack-services.ts";

type Prisma = ReturnType<typeof createPrisma>;

export const PAGE_BUDGET_MS = 1_000;

export interface PageTiming {
  name: string;
  path: string;
  usable: string;
  /** Milliseconds from navigation to usable, one per visit. */
  runs: number[];
  /** Per visit, the API call that took longest (request sent to response read), and its path. */
  slowestApi: { path: string; ms: number }[];
}

interface Seeded {
  /** A link with clicks. */
  link: string;
  /** How many links the account holds. */
  links: number;
}

interface PageSpec {
  name: string;
  path: (seeded: Seeded) => string;
  /** What "usable" means on this page, for the report. */
  usable: string;
  /** Resolves once the page is usable. */
  ready: (page: Page, seeded: Seeded) => Promise<unknown>;
  /**
   * For an action on a page rather than the page itself: done after the page is usable, and timed
   * from its start to `ready` instead.
   */
  act?: (page: Page) => Promise<unknown>;
  /** Resolves once the action's result is usable. */
  acted?: (page: Page, seeded: Seeded) => Promise<unknown>;
}

// The page's document, inside the browser functions below (this package is typed without the DOM;
// a string would be eval'd, which the dashboard's CSP forbids).
interface Node {
  textContent: string | null;
}
declare const document: {
  querySelector(selector: string): Node | null;
  querySelectorAll(selector: string): Iterable<Node>;
};

/**
 * Until an element matching `selector` (and holding `text`) is in the page, checked on every animation
 * frame: a locator's waitFor polls at growing intervals (up to 500 ms apart), which would be measured.
 */
const shown = (page: Page, selector: string, text = "") =>
  page.waitForFunction(
    ([sel, txt]) => {
      for (const e of document.querySelectorAll(sel)) if ((e.textContent ?? "").includes(txt)) return true;
      return false;
    },
    [selector, text] as const,
    { polling: "raf" },
  );

/** No "Loading …" line left anywhere in the page's main area. */
const settled = (page: Page) =>
  page.waitForFunction(
    () => document.querySelector("main .loading, main [aria-busy='true']") === null,
    null,
    {
      polling: "raf",
    },
  );
const heading = (page: Page, name: string) => shown(page, "main h1", name);

const PAGES: PageSpec[] = [
  {
    name: "Overview",
    path: () => "/dashboard",
    usable: "the four totals filled, the chart drawn (its canvas), the top links listed",
    ready: async (page) => {
      await page.waitForFunction(
        () => {
          const v = document.querySelector("[data-testid='unique-visitors']");
          return (
            v !== null && v.textContent !== "–" && document.querySelector(".chart-canvas canvas") !== null
          );
        },
        null,
        { polling: "raf" },
      );
      await settled(page);
    },
  },
  {
    name: "Links",
    path: () => "/dashboard/links",
    usable: "the first page of rows (20, newest first) and the pager with the total",
    ready: async (page, { links }) => {
      await shown(page, "[data-testid='link-row']");
      await shown(page, ".pager", `${links.toLocaleString("en")} links`);
    },
  },
  {
    name: "Links: search",
    path: () => "/dashboard/links",
    usable:
      "typing a word that one link in five has (`cats`) to its first page of rows and the pager with their total (includes the search box's 250 ms debounce)",
    ready: (page) => shown(page, "[data-testid='link-row']"),
    act: (page) => page.getByRole("searchbox").fill("cats"),
    acted: (page, { links }) => shown(page, ".pager", `${Math.round(links / 5).toLocaleString("en")} links`),
  },
  {
    name: "Link page",
    path: ({ link }) => `/dashboard/links/${link}`,
    usable: "the link's chart drawn and its breakdowns listed",
    ready: async (page) => {
      await shown(page, ".chart-canvas canvas");
      await settled(page);
    },
  },
  {
    name: "API keys",
    path: () => "/dashboard/keys",
    usable: "the first key's row",
    ready: (page) => shown(page, "[data-testid='key-row']"),
  },
  {
    name: "Account",
    path: () => "/dashboard/account",
    usable: "the e-mail shown and the link usage (all the links, of the limit)",
    ready: async (page, { links }) => {
      await shown(page, "[data-testid='account-email']");
      await shown(page, "main", `${links.toLocaleString("en")} of`);
    },
  },
  ...(
    [
      ["Domains", "/dashboard/domains", "Branded domains"],
      ["Campaigns", "/dashboard/campaigns", "Campaigns"],
      ["Channels", "/dashboard/channels", "Channels"],
      ["Overlays", "/dashboard/overlays", "CTA overlays"],
      ["Webhooks", "/dashboard/webhooks", "Webhooks"],
      ["Import", "/dashboard/import", "Import links"],
      ["Export", "/dashboard/export", "Export"],
    ] as const
  ).map(
    ([name, path, title]): PageSpec => ({
      name,
      path: () => path,
      usable: `its heading and its list or form, no loading line left`,
      ready: async (page) => {
        await heading(page, title);
        await settled(page);
      },
    }),
  ),
];

/** Clicks made through the redirect service before the pages are timed. */
const CLICKS = 3_000;

const VISITOR_UA = (i: number) =>
  `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.${i}.0 Safari/537.36`;

export async function timePages(opts: {
  links: number;
  runs: number;
  chromiumPath: string;
  log: (line: string) => void;
}): Promise<{ timings: PageTiming[]; seedMs: number; clicks: number }> {
  const env = productionEnv("web");
  const stack = await startStack({
    // The bench's own visits are many more than a person's in a minute.
    extraEnv: { ...env, SESSION_RATE_LIMIT_PER_MINUTE: "100000" },
  });
  const prisma = createPrisma(stack.databaseUrl);
  const browser = await chromium.launch({
    executablePath: opts.chromiumPath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  try {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      baseURL: stack.origin,
    });
    const reg = await context.request.post("/api/v1/auth/register", {
      data: { email: `bench-web-${Date.now()}@example.com`, password: "correct horse battery" },
    });
    if (reg.status() !== 201) throw new Error(`register: ${reg.status()} ${await reg.text()}`);
    const accountId = ((await reg.json()) as { data: { account: { id: string } } }).data.account.id;

    opts.log(`seeding ${opts.links} links`);
    const seedMs = await seedLinks(prisma, accountId, opts.links);
    const clicked = await clickThrough(stack.origin, context.request, prisma, accountId, opts.log);
    const seeded: Seeded = { link: clicked[0]!.id, links: opts.links };
    const timings = await visitPages(context, seeded, opts);
    return { timings, seedMs, clicks: CLICKS };
  } finally {
    await browser.close();
    await prisma.$disconnect();
    await stack.stop();
    rmSync(env.SPOOL_DIR!, { recursive: true, force: true });
  }
}

/** Seeds `links` links into the account behind the API's back (its stored count made to match); returns the time it took. */
async function seedLinks(prisma: Prisma, accountId: string, links: number): Promise<number> {
  const seedStarted = Date.now();
  await prisma.$executeRawUnsafe(
    `INSERT INTO links (id, account_id, short_code, original_url, title, is_active, created_at, updated_at)
       SELECT gen_random_uuid(), $1::uuid, 'seed' || i,
              'https://site' || (i % 5000) || '.example.com/path/' || md5(i::text),
              'Seeded page ' || i || ' about ' || (ARRAY['cats','dogs','news','shop','blog'])[1 + i % 5],
              i % 3 <> 0, now() - make_interval(secs => i), now()
       FROM generate_series(1, ${links}) AS i`,
    accountId,
  );
  await prisma.$executeRaw`UPDATE accounts SET link_limit = ${links * 2} WHERE id = ${accountId}::uuid`;
  await prisma.$queryRaw`SELECT kurz_recount_links(${accountId}::uuid)`;
  await prisma.$executeRawUnsafe("VACUUM ANALYZE links");
  return Date.now() - seedStarted;
}

/**
 * Clicks through the redirect service: 300 links, 200 visitors, 3,000 clicks, until analytics has
 * counted them all. Returns the clicked links.
 */
async function clickThrough(
  origin: string,
  request: APIRequestContext,
  prisma: Prisma,
  accountId: string,
  log: (line: string) => void,
): Promise<{ id: string; short_code: string }[]> {
  const clicked = await prisma.$queryRaw<{ id: string; short_code: string }[]>`
      SELECT id::text AS id, short_code FROM links WHERE account_id = ${accountId}::uuid AND is_active
      ORDER BY short_code LIMIT 300`;
  log(`${CLICKS} clicks through the redirect service`);
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < CLICKS) {
        const i = next++;
        const link = clicked[(i * 7) % clicked.length]!;
        const res = await fetch(`${origin}/${link.short_code}`, {
          redirect: "manual",
          headers: { "user-agent": VISITOR_UA(i % 200) },
        });
        if (res.status !== 302) throw new Error(`click: ${res.status}`);
        await res.body?.cancel();
      }
    }),
  );
  // Until analytics has counted them all (the overview's total).
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await request.get("/api/v1/analytics/summary");
    const total = ((await res.json()) as { data?: { total_clicks: number } }).data?.total_clicks ?? 0;
    if (total >= CLICKS) break;
    if (Date.now() > deadline) throw new Error(`only ${total} of ${CLICKS} clicks counted after 60 s`);
    await new Promise((r) => setTimeout(r, 250));
  }

  return clicked;
}

/** Visits every page once to warm up, then `runs` times, timing each visit and its slowest API call. */
async function visitPages(
  context: BrowserContext,
  seeded: Seeded,
  opts: { runs: number; log: (line: string) => void },
): Promise<PageTiming[]> {
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  // What each API call of a visit took, to see where a slow page's time goes.
  let calls: { path: string; ms: number }[] = [];
  page.on("requestfinished", (request) => {
    const url = new URL(request.url());
    if (!url.pathname.startsWith("/api/")) return;
    const t = request.timing();
    calls.push({ path: `${request.method()} ${url.pathname}${url.search}`, ms: Math.round(t.responseEnd) });
  });
  const timings: PageTiming[] = [];
  for (const spec of PAGES) {
    const path = spec.path(seeded);
    const visit = async () => {
      await page.goto("about:blank");
      calls = [];
      let started = Date.now();
      await page.goto(path, { waitUntil: "commit" });
      await spec.ready(page, seeded);
      if (spec.act && spec.acted) {
        started = Date.now();
        await spec.act(page);
        await spec.acted(page, seeded);
      }
      return Date.now() - started;
    };
    await visit(); // warm-up: the page's chunk and the app into the browser cache
    const runs: number[] = [];
    const slowestApi: { path: string; ms: number }[] = [];
    for (let i = 0; i < opts.runs; i++) {
      runs.push(await visit());
      const slowest = calls.reduce((a, b) => (b.ms > a.ms ? b : a), { path: "-", ms: 0 });
      slowestApi.push({ ...slowest, path: slowest.path.replace(seeded.link, ":id") });
    }
    opts.log(
      `${spec.name}: ${runs.join(", ")} ms; slowest API: ${slowestApi.map((c) => `${c.path} ${c.ms}`).join(" | ")}`,
    );
    timings.push({
      name: spec.name,
      path: path.replace(seeded.link, ":id"),
      usable: spec.usable,
      runs,
      slowestApi,
    });
  }
  return timings;
}
