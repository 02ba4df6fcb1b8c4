// Records the accounts-to-workspaces migration's "before" (pre-workspaces.ts): seeds one account
// through the public API of the code checked out, dumps the database's data and writes the answers to
// a fixed list of reads. Run it on the code before that migration, from the repository's root:
//
//   TEST_PG_ADMIN_URL=postgresql://postgres@127.0.0.1:55432/postgres \
//     node --import tsx tests/e2e/pre-workspaces.record.ts
//
// It needs the tests' Postgres and Redis (TEST_PG_ADMIN_URL and TEST_REDIS_URL as for the tests: the
// URL above is ./kurz test's own Postgres), the generated Prisma client, and pg_dump of the newest
// PostgreSQL installed. It overwrites fixtures/pre-workspaces/{data.sql,answers.json}.
import "../../services/analytics/test/register-stack.ts";
import "../../services/gateway/test/register-stack.ts";
import "../../services/management/test/register-stack.ts";
import "../../services/redirect/test/register-stack.ts";
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { createPrisma, MIGRATIONS_DIR } from "@kurz/db";
import { pgBin, waitFor } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import {
  ANSWERS_FILE,
  type Answer,
  ask,
  type Credential,
  type Credentials,
  DATA_FILE,
  FIXTURE_DIR,
  type Fixture,
  type Question,
  STACK_ENV,
} from "./pre-workspaces.ts";

const EMAIL = "ada@pre-workspaces.example";
const PASSWORD = "violet-harbour-kettle-19";

/** A write through the public origin that must succeed; returns its JSON body, taken to be a `T`. */
async function write<T>(stack: Stack, key: string, method: string, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${stack.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

async function register(stack: Stack): Promise<{ apiKey: string; sessionToken: string }> {
  const res = await fetch(`${stack.origin}/api/v1/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`register: ${res.status} ${text}`);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("kurz_session="));
  const sessionToken = cookie?.split(";")[0]?.split("=")[1];
  if (!sessionToken) throw new Error(`register set no session cookie: ${res.headers.getSetCookie()}`);
  return {
    apiKey: (JSON.parse(text) as { data: { api_key: { key: string } } }).data.api_key.key,
    sessionToken,
  };
}

interface Seeded {
  credentials: Credentials;
  links: Array<{ id: string; short_code: string }>;
  rotatorSlug: string;
}

/** One account as a person would set it up, through v1 and the older API. */
async function seed(stack: Stack): Promise<Seeded> {
  const { apiKey, sessionToken } = await register(stack);
  const send = <T = unknown>(method: string, path: string, body: unknown) =>
    write<T>(stack, apiKey, method, path, body);
  const second = await send<{ data: { key: string } }>("POST", "/api/v1/account/keys", {
    name: "CI deploys",
  });

  const overlay = await send<{ id: number }>("POST", "/api/overlay/add", {
    type: "message",
    name: "Spring sale",
    text: "Everything 20% off this week",
    button_label: "Shop now",
    button_url: "https://shop.example.com/spring",
  });
  const create = async (body: Record<string, unknown>) =>
    (await send<{ data: { id: string; short_code: string } }>("POST", "/api/v1/links", body)).data;
  const links = [
    await create({ url: "https://docs.example.com/guide", title: "The guide" }),
    await create({ url: "https://blog.example.com/launch", custom_alias: "launch", title: "Launch post" }),
    await create({
      url: "https://events.example.com/2099",
      title: "Far-off event",
      expires_at: "2099-01-01T00:00:00Z",
    }),
    await create({ url: "https://old.example.com/", custom_alias: "retired-page", title: "Old page" }),
    await create({ url: "https://shop.example.com/", title: "Shop", overlay_id: overlay.id }),
    await create({ url: "https://private.example.com/", title: "Members only", password: "open-sesame-42" }),
    await create({ url: "https://a.example.com/variant", title: "Variant A" }),
    await create({ url: "https://b.example.com/variant", title: "Variant B" }),
  ];
  await send("PATCH", `/api/v1/links/${links[3]!.id}`, { is_active: false });

  await send("POST", "/api/domain/add", {
    domain: "https://go.pre-workspaces.example",
    redirectroot: "https://www.pre-workspaces.example/",
  });
  const rotatorSlug = "spring-ab";
  const campaign = await send<{ id: number }>("POST", "/api/campaign/add", {
    name: "Spring A/B",
    slug: rotatorSlug,
    public: true,
  });
  await send("POST", `/api/campaign/${campaign.id}/assign/${links[6]!.id}`, {});
  await send("POST", `/api/campaign/${campaign.id}/assign/${links[7]!.id}`, {});
  await send("PUT", `/api/campaign/${campaign.id}/weight/${links[7]!.id}`, { weight: 2 });
  const channel = await send<{ id: number }>("POST", "/api/channel/add", {
    name: "Newsletter",
    description: "Links sent in the monthly letter",
    color: "#1A2B3C",
    starred: true,
  });
  await send("POST", `/api/channel/${channel.id}/assign/${links[0]!.id}`, {});
  await send("POST", `/api/channel/${channel.id}/assign/${links[1]!.id}`, {});
  // Disabled: nothing is delivered, so no delivery rows appear while recording or replaying.
  await send("POST", "/api/v1/webhooks", {
    url: "http://127.0.0.1:9/kurz-hook",
    events: ["link.created", "click"],
    description: "Staging receiver",
    enabled: false,
  });
  return {
    credentials: { api_key: apiKey, second_api_key: second.data.key, session_token: sessionToken },
    links,
    rotatorSlug,
  };
}

/** The reads whose answers the migration must keep, in the order they are asked. */
function questions({ links, rotatorSlug }: Seeded): Question[] {
  const api = (path: string, credential: Credential = "key"): Question => ({
    kind: "api",
    method: "GET",
    path,
    credential,
  });
  const redirect = (path: string): Question => ({
    kind: "redirect",
    method: "GET",
    path,
    credential: "none",
  });
  return [
    api("/api/v1/account"),
    api("/api/v1/account/usage"),
    api("/api/v1/links"),
    api("/api/v1/links?per_page=3&page=2"),
    ...links.map((link) => api(`/api/v1/links/${link.id}`)),
    api("/api/v1/webhooks"),
    api("/api/account"),
    api("/api/domains"),
    api("/api/campaigns"),
    api("/api/channels"),
    api("/api/overlay"),
    api("/api/v1/account/usage", "second_key"),
    api("/api/v1/account", "session"),
    api("/api/v1/links?per_page=5", "session"),
    api("/api/v1/account", "none"),
    // Redirects last: each counts a click, which the reads above would otherwise see.
    ...links.map((link) => redirect(`/${link.short_code}`)),
    redirect("/no-such-code"),
    // Two turns of the rotator: the first two of its weighted round robin, which starts afresh with
    // the stack (rotator-turns.ts).
    redirect(`/r/${rotatorSlug}`),
    redirect(`/r/${rotatorSlug}`),
  ];
}

/**
 * The data only: the schema comes from the migrations when it is loaded, and so do the two tables
 * that say which migrations and sql/ definitions ran.
 */
function dumpData(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const dump = execFileSync(
    pgBin("pg_dump"),
    [
      "--data-only",
      "--inserts",
      // Loaded into a schema with every table already there, in table order rather than key order.
      "--disable-triggers",
      "--no-owner",
      "--no-privileges",
      "--exclude-table-data=_prisma_migrations",
      "--exclude-table-data=_kurz_sql_definitions",
      "--host",
      url.hostname,
      "--port",
      url.port || "5432",
      "--username",
      decodeURIComponent(url.username) || "postgres",
      url.pathname.slice(1),
    ],
    { encoding: "utf8", env: { ...process.env, PGPASSWORD: decodeURIComponent(url.password) } },
  );
  // pg_dump's \restrict and \unrestrict (a random key each run) are psql commands: the replay loads
  // the file as SQL.
  return dump.replace(/^\\(un)?restrict .*\n/gm, "");
}

/** Events waiting in the outbox would be published by whichever stack runs on the dump next. */
async function outboxDrained(databaseUrl: string): Promise<void> {
  const prisma = createPrisma(databaseUrl);
  try {
    await waitFor(async () => (await prisma.outboxEvent.count()) === 0 || undefined, { timeoutMs: 30_000 });
  } finally {
    await prisma.$disconnect();
  }
}

const migration = readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort()
  .at(-1)!;

const stack = await startStack({ inProcess: true, extraEnv: STACK_ENV });
try {
  const seeded = await seed(stack);
  await outboxDrained(stack.databaseUrl);
  const data = dumpData(stack.databaseUrl);
  const answers: Answer[] = [];
  for (const question of questions(seeded))
    answers.push(await ask(stack.origin, question, seeded.credentials));
  const fixture: Fixture = {
    migration,
    recorded_at: new Date().toISOString(),
    credentials: seeded.credentials,
    answers,
  };
  mkdirSync(FIXTURE_DIR, { recursive: true });
  writeFileSync(DATA_FILE, data);
  writeFileSync(ANSWERS_FILE, `${JSON.stringify(fixture, null, 2)}\n`);
  console.log(`recorded ${answers.length} answers at ${migration} into ${FIXTURE_DIR}`);
} finally {
  await stack.stop();
}
