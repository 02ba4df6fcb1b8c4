// The "before and after" fixture of the accounts-to-workspaces migration: one account's data as the
// code before that migration wrote it (fixtures/pre-workspaces/data.sql), and the answers that code
// gave to a fixed list of reads of it (fixtures/pre-workspaces/answers.json). pre-workspaces.record.ts
// records both; pre-workspaces-answers.test.ts loads the data at the schema it was recorded at,
// migrates it to the newest and asks the same questions, expecting the same answers.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SESSION_COOKIE } from "@kurz/contracts";

export const FIXTURE_DIR = join(import.meta.dirname, "fixtures", "pre-workspaces");
export const DATA_FILE = join(FIXTURE_DIR, "data.sql");
export const ANSWERS_FILE = join(FIXTURE_DIR, "answers.json");

/**
 * The stack's environment when recording and when replaying. One public origin, whatever port the
 * stack listens on: short URLs and rotator URLs name it (the stack is still reached on 127.0.0.1, one
 * of PUBLIC_HOSTS). No title or framing fetches: their answers come from the network and would make a
 * link's record depend on the day it was checked. A webhook endpoint on loopback may be created (it
 * is created disabled, so nothing is delivered).
 */
export const STACK_ENV: Record<string, string> = {
  PUBLIC_BASE_URL: "http://kurz.pre-workspaces.example",
  TITLE_FETCH_ENABLED: "false",
  WEBHOOK_ALLOW_HOSTS: "127.0.0.1",
};

/** Who asks: the account's first API key, its second one, its browser session, or nobody. */
export type Credential = "key" | "second_key" | "session" | "none";

/** A read and how it is compared: an API answer by its status and JSON body, a redirect by status and Location. */
export interface Question {
  kind: "api" | "redirect";
  method: "GET";
  path: string;
  credential: Credential;
}

export interface Answer extends Question {
  status: number;
  /** The parsed JSON body (api only). */
  body?: unknown;
  /** The Location header, null when there is none (redirect only). */
  location?: string | null;
}

export interface Fixture {
  /** The newest migration when the data was recorded: the replay loads the data at exactly that schema. */
  migration: string;
  recorded_at: string;
  /** Test credentials of the recorded account, in clear so that the replay can use them. */
  credentials: { api_key: string; second_api_key: string; session_token: string };
  answers: Answer[];
}

export type Credentials = Fixture["credentials"];

export function readFixture(): Fixture {
  return JSON.parse(readFileSync(ANSWERS_FILE, "utf8")) as Fixture;
}

/** A browser's user agent: redirects count the visit and show overlays as to a person. */
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

function headersFor(credential: Credential, credentials: Credentials): Record<string, string> {
  switch (credential) {
    case "key":
      return { authorization: `Bearer ${credentials.api_key}` };
    case "second_key":
      return { authorization: `Bearer ${credentials.second_api_key}` };
    case "session":
      return { cookie: `${SESSION_COOKIE}=${credentials.session_token}` };
    case "none":
      return {};
  }
}

/** Asks `question` of the stack at `origin`. */
export async function ask(origin: string, question: Question, credentials: Credentials): Promise<Answer> {
  const res = await fetch(`${origin}${question.path}`, {
    method: question.method,
    headers: { "user-agent": BROWSER, ...headersFor(question.credential, credentials) },
    redirect: "manual",
  });
  if (question.kind === "redirect") {
    await res.body?.cancel();
    return { ...question, status: res.status, location: res.headers.get("location") };
  }
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Kept as text: a non-JSON answer is compared as it was.
  }
  return { ...question, status: res.status, body };
}

/**
 * An answer without the fields that legitimately differ between two askings of the same data, and so
 * are not compared. Keep this list short:
 * - `last_used_at` of the keys in /api/v1/account/usage: the time of the key's last request, which
 *   is the replay's own requests (flushed every KEY_USAGE_FLUSH_MS, so not even stable within a run).
 */
export function comparable(answer: Answer): Answer {
  if (answer.kind !== "api" || answer.path !== "/api/v1/account/usage") return answer;
  const body = structuredClone(answer.body) as { data?: { keys?: Array<Record<string, unknown>> } };
  for (const key of body.data?.keys ?? []) delete key.last_used_at;
  return { ...answer, body };
}
