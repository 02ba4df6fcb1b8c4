// Data written before the accounts-to-workspaces migration keeps its answers after it: the recorded
// account's data (fixtures/pre-workspaces, pre-workspaces.ts) is loaded at the schema it was recorded
// at, every later migration runs over it, and a stack on that database gives every recorded read
// (API keys, the session, redirects, rotator turns) the answer the code before the migration gave:
// every member it had, with the same value. An answer may gain members (a key's `scopes`): SPEC
// clients ignore members they do not know.
// Redis starts empty, as after an upgrade: every record is resolved from management on a miss.
import { readFileSync } from "node:fs";
import { createPrisma, migrateDatabase, poolOf } from "@kurz/db";
import { createTestDatabase, type TestDatabase } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  type Answer,
  ask,
  comparable,
  DATA_FILE,
  type Fixture,
  readFixture,
  STACK_ENV,
} from "./pre-workspaces.ts";

const fixture: Fixture = readFixture();
let database: TestDatabase;
let stack: Stack;

/** Runs `sql` (many statements, no parameters) on the database. */
async function execute(url: string, sql: string): Promise<void> {
  const prisma = createPrisma(url);
  try {
    await poolOf(prisma).query(sql);
  } finally {
    await prisma.$disconnect();
  }
}

beforeAll(async () => {
  database = await createTestDatabase("pre_workspaces");
  await migrateDatabase(database.url, { through: fixture.migration });
  await execute(database.url, readFileSync(DATA_FILE, "utf8"));
  await migrateDatabase(database.url);
  // A session's idle and absolute lifetimes run on the wall clock: moved forward together, by the
  // time since it was last renewed, it is the session it was when recorded, as of now.
  await execute(
    database.url,
    `UPDATE sessions SET created_at = created_at + (now() - renewed_at),
       expires_at = expires_at + (now() - renewed_at), renewed_at = now()`,
  );
  stack = await startStack({ inProcess: true, databaseUrl: database.url, extraEnv: STACK_ENV });
});
afterAll(async () => {
  await stack?.stop();
  await database?.drop();
});

it("answers every recorded read as it was answered before the migration", async () => {
  // In order, one at a time: the redirects come last (each counts a click) and the rotator's turns
  // depend on what came before them.
  const answers: Answer[] = [];
  for (const { status: _status, body: _body, location: _location, ...question } of fixture.answers) {
    answers.push(await ask(stack.origin, question, fixture.credentials));
  }
  expect(answers.map(comparable)).toMatchObject(fixture.answers.map(comparable));
});
