// The public API of a test stack as these tests use it: requests as an account (or anonymously),
// links created through management, and a wait for their clicks to reach analytics.
import { waitFor } from "@kurz/testing";
import type { CreatedAccount, Stack } from "@kurz/testing/stack";
import { expect } from "vitest";

/** What these requests need of an account. */
export type Account = Pick<CreatedAccount, "account_id" | "api_key">;

export interface LinkData {
  id: string;
  short_code: string;
  short_url: string;
}

/** An answer of the API: its status and its envelope. */
export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted whole with toEqual, not typed
  body: { success: boolean; data: any; error?: any };
}

export interface PublicApi {
  /** A request to the public origin, as `a` (anonymous with null). */
  api(a: Account | null, method: string, path: string, body?: unknown): Promise<Answer>;
  /** A link of `a`'s (title "A title" unless `body` names one). */
  createLink(a: Account, body: Record<string, unknown>): Promise<LinkData>;
  /** Waits until the link's analytics show `human` clicks and `bots` bot clicks. */
  settled(a: Account, link: LinkData, human: number, bots?: number): Promise<void>;
}

/** The stack is the file's, known once its setup has run. */
export function publicApi(stack: () => Stack): PublicApi {
  const api: PublicApi["api"] = async (a, method, path, body) => {
    const res = await fetch(`${stack().origin}${path}`, {
      method,
      headers: {
        ...(a ? { authorization: `Bearer ${a.api_key}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Answer["body"] };
  };
  return {
    api,
    async createLink(a, body) {
      const res = await api(a, "POST", "/api/v1/links", { title: "A title", ...body });
      expect(res.status).toBe(201);
      return res.body.data as LinkData;
    },
    async settled(a, link, human, bots = 0) {
      await waitFor(
        async () => {
          const res = await api(a, "GET", `/api/v1/analytics/${link.id}`);
          return (
            res.status === 200 && res.body.data.total_clicks === human && res.body.data.bot_clicks === bots
          );
        },
        {
          timeoutMs: 20_000,
          intervalMs: 100,
          description: `${human} clicks of ${link.short_code} in analytics`,
        },
      );
    },
  };
}
