// The direct path (decision 0044) must answer exactly as the Express mount of the same record does:
// one server of each, the same requests, the same statuses, bodies and headers.
import type { RequestListener } from "node:http";
import { gzipSync } from "node:zlib";
import { ROUTES, SCOPES } from "@kurz/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import {
  createApp,
  directRoutes,
  forwardedHeaders,
  installErrorHandlers,
  type MountedRoute,
  mountRoutes,
  notFound,
  requireForwarded,
  route,
  v1Success,
} from "../src/index.ts";
import { captureLogger, serve } from "./helpers.ts";

const SECRET = "direct-routes-secret";
const ACCOUNT = "6f1c1a52-7f2b-4c3e-9a55-2f3d4e5f6a7b";
const KNOWN = "0b8e7c1e-1d2f-4a3b-8c4d-5e6f7a8b9c0d";
const BROKEN = "1b8e7c1e-1d2f-4a3b-8c4d-5e6f7a8b9c0d";
const link = {
  id: KNOWN,
  short_code: "abc123",
  short_url: "https://kurz.example/abc123",
  original_url: "https://example.com/page",
  title: "A page",
  is_active: true,
  has_password: false,
  expires_at: null,
  clicks_count: 3,
  analytics_public: false,
  created_at: "2026-11-24T10:00:00.000Z",
  updated_at: "2026-11-24T10:00:00.000Z",
  analytics_shared_fields: null,
};

const routes: MountedRoute[] = [
  route(ROUTES.getLink, ({ params, identity }) => {
    if (identity.accountId !== ACCOUNT || params.id === "00000000-0000-4000-8000-000000000000") {
      throw notFound("Link not found.");
    }
    // A response that breaks its record: a 500 on both paths while responses are checked.
    if (params.id === BROKEN) return v1Success({ ...link, clicks_count: "many" } as unknown as typeof link);
    return v1Success(link);
  }),
  // Routes with a body (decision 0044): the created or updated link echoes what was parsed.
  route(ROUTES.createLink, ({ body, identity }) => {
    if (identity.accountId !== ACCOUNT) throw notFound("Link not found.");
    return v1Success({ ...link, original_url: body.url, title: body.title ?? "fetched" });
  }),
  route(ROUTES.updateLink, ({ body }) => v1Success({ ...link, title: body.title ?? link.title })),
];

const bases = { express: "", direct: "" };
/** Requests the direct server handed to its Express fallback. */
let fellBack = 0;

const countingFallback =
  (listener: RequestListener): RequestListener =>
  (req, res) => {
    fellBack++;
    listener(req, res);
  };

beforeAll(async () => {
  const { logger } = captureLogger("direct-routes-test");
  const app = () => {
    const express = createApp({ logger, envelope: "auto" });
    express.use("/api", requireForwarded(SECRET));
    mountRoutes(express, routes, { validateResponses: true });
    installErrorHandlers(express, { logger, envelope: "auto" });
    return express;
  };
  bases.express = (await serve(app())).url;
  bases.direct = (
    await serve(
      directRoutes(
        {
          // The GET and the two routes with a body: direct when their request is plain, Express otherwise.
          routes,
          internalToken: SECRET,
          logger,
          validateResponses: true,
        },
        countingFallback(app()),
      ),
    )
  ).url;
});

const keyed = forwardedHeaders(SECRET, { accountId: ACCOUNT, keyId: "key-1", scopes: SCOPES });

async function both(path: string, init: RequestInit | (() => RequestInit) = {}) {
  const answers = await Promise.all(
    (["express", "direct"] as const).map(async (which) => {
      const res = await fetch(`${bases[which]}${path}`, typeof init === "function" ? init() : init);
      const text = await res.text();
      return {
        status: res.status,
        body: text === "" ? null : JSON.parse(text),
        type: res.headers.get("content-type"),
        length: res.headers.get("content-length"),
        etag: res.headers.get("etag"),
        allow: res.headers.get("allow"),
        requestId: res.headers.get("x-request-id") !== null,
      };
    }),
  );
  return { express: answers[0]!, direct: answers[1]! };
}

describe("directRoutes", () => {
  it.each([
    ["a found link", `/api/v1/links/${KNOWN}`, keyed],
    [
      "another account's link",
      `/api/v1/links/${KNOWN}`,
      forwardedHeaders(SECRET, { accountId: KNOWN, scopes: SCOPES }),
    ],
    ["an unknown link", "/api/v1/links/00000000-0000-4000-8000-000000000000", keyed],
    ["an id that is no UUID", "/api/v1/links/not-a-uuid", keyed],
    ["a query string", `/api/v1/links/${KNOWN}?x=1`, keyed],
    ["no forwarding credential", `/api/v1/links/${KNOWN}`, {}],
    [
      "a wrong forwarding credential",
      `/api/v1/links/${KNOWN}`,
      forwardedHeaders("other", { accountId: ACCOUNT }),
    ],
    ["no identity", `/api/v1/links/${KNOWN}`, forwardedHeaders(SECRET)],
    [
      "a session's request",
      `/api/v1/links/${KNOWN}`,
      forwardedHeaders(SECRET, { accountId: ACCOUNT, sessionId: "session-1" }),
    ],
    ["a response that breaks its record", `/api/v1/links/${BROKEN}`, keyed],
    ["an encoded id (Express decodes it)", `/api/v1/links/${KNOWN.replace("-", "%2D")}`, keyed],
    ["a trailing slash", `/api/v1/links/${KNOWN}/`, keyed],
    ["another case", `/API/v1/links/${KNOWN}`, keyed],
  ])("answers %s as Express does", async (_name, path, headers) => {
    const { express, direct } = await both(path, { headers });
    expect(direct).toEqual(express);
  });

  const json = { ...keyed, "content-type": "application/json" };
  const post = (
    body: NonNullable<RequestInit["body"]>,
    headers: Record<string, string> = json,
    method = "POST",
  ) => ({
    method,
    headers,
    body,
  });
  const valid = JSON.stringify({ url: "https://example.com/new", title: "New" });
  it.each([
    ["a valid body", "/api/v1/links", post(valid)],
    ["a valid body without a title", "/api/v1/links", post('{"url":"https://example.com/x"}')],
    ["a body its schema refuses", "/api/v1/links", post('{"url":"not a url","title":""}')],
    ["malformed JSON", "/api/v1/links", post('{"url":')],
    ["a JSON string (not strict JSON)", "/api/v1/links", post('"https://example.com/"')],
    ["a JSON number after whitespace", "/api/v1/links", post(" \n 123")],
    ["only whitespace", "/api/v1/links", post("   ")],
    ["an array", "/api/v1/links", post("[1]")],
    ["a byte-order mark, then JSON", "/api/v1/links", post(`\ufeff${valid}`)],
    ["only a byte-order mark", "/api/v1/links", post("\ufeff")],
    [
      "bytes that are not UTF-8",
      "/api/v1/links",
      post(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])),
    ],
    [
      "charset=utf-8",
      "/api/v1/links",
      post(valid, { ...keyed, "content-type": "application/json; charset=UTF-8" }),
    ],
    [
      "another media type's case",
      "/api/v1/links",
      post(valid, { ...keyed, "content-type": "Application/JSON" }),
    ],
    [
      "a latin-1 charset (Express's 415)",
      "/api/v1/links",
      post(valid, { ...keyed, "content-type": "application/json; charset=latin1" }),
    ],
    ["text/plain (Express's 415)", "/api/v1/links", post(valid, { ...keyed, "content-type": "text/plain" })],
    [
      "a +json media type",
      "/api/v1/links",
      post(valid, { ...keyed, "content-type": "application/link+json" }),
    ],
    ["no media type", "/api/v1/links", post(valid, keyed)],
    ["a gzipped body", "/api/v1/links", post(gzipSync(valid), { ...json, "content-encoding": "gzip" })],
    [
      "a body over the limit (Express's 413)",
      "/api/v1/links",
      post(JSON.stringify({ url: "https://example.com/", title: "x".repeat(1024 * 1024) })),
    ],
    ["a query string", "/api/v1/links?x=1", post(valid)],
    ["a trailing slash", "/api/v1/links/", post(valid)],
    ["no forwarding credential", "/api/v1/links", post(valid, { "content-type": "application/json" })],
    ["malformed JSON and no credential", "/api/v1/links", post("{", { "content-type": "application/json" })],
    [
      "another account",
      "/api/v1/links",
      post(valid, {
        ...forwardedHeaders(SECRET, { accountId: KNOWN, scopes: SCOPES }),
        "content-type": "application/json",
      }),
    ],
    [
      "no identity",
      "/api/v1/links",
      post(valid, { ...forwardedHeaders(SECRET), "content-type": "application/json" }),
    ],
    ["an empty body", "/api/v1/links", post("")],
    ["PUT (no such route)", "/api/v1/links", post(valid, json, "PUT")],
    [
      "a PATCH with an immutable member (its record's own 400)",
      `/api/v1/links/${KNOWN}`,
      post('{"short_code":"x"}', json, "PATCH"),
    ],
    ["a PATCH with an unknown member", `/api/v1/links/${KNOWN}`, post('{"nope":1}', json, "PATCH")],
    ["a valid PATCH", `/api/v1/links/${KNOWN}`, post('{"title":"T"}', json, "PATCH")],
    ["a PATCH of a malformed id", "/api/v1/links/not-a-uuid", post('{"title":"T"}', json, "PATCH")],
  ])("answers a body with %s as Express does", async (_name, path, init) => {
    const { express, direct } = await both(path, init);
    expect(direct).toEqual(express);
  });

  it("answers the plain JSON bodies itself and leaves every other body to Express", async () => {
    const fallbacks = async (path: string, init: RequestInit) => {
      const before = fellBack;
      await both(path, init);
      return fellBack - before;
    };
    for (const init of [
      post(valid),
      post(valid, { ...keyed, "content-type": "application/json; charset=utf-8" }),
      post("{"),
      post('{"url":"nope"}'),
    ]) {
      expect(await fallbacks("/api/v1/links", init)).toBe(0);
    }
    for (const init of [
      post(valid, { ...keyed, "content-type": "application/json; charset=latin1" }),
      post(gzipSync(valid), { ...json, "content-encoding": "gzip" }),
      post(""),
      post(valid, keyed),
    ]) {
      expect(await fallbacks("/api/v1/links", init)).toBe(1);
    }
  });

  it("answers a chunked body as Express does (Express reads it)", async () => {
    const chunked = () => ({
      method: "POST",
      headers: json,
      body: new Blob([valid]).stream(),
      duplex: "half",
    });
    const before = fellBack;
    const { express, direct } = await both("/api/v1/links", chunked as () => RequestInit);
    expect(fellBack).toBe(before + 1);
    expect(direct).toEqual(express);
    expect(direct.status).toBe(201);
  });

  it("answers a found link with the record's body and a weak ETag", async () => {
    const { direct } = await both(`/api/v1/links/${KNOWN}`, { headers: keyed });
    expect(direct.status).toBe(200);
    expect(direct.body).toEqual({ success: true, data: link });
    expect(direct.etag).toMatch(/^W\/"/);
    expect(direct.requestId).toBe(true);
  });

  it("leaves conditional requests, HEAD and other methods to Express", async () => {
    const first = await both(`/api/v1/links/${KNOWN}`, { headers: keyed });
    const conditional = await both(`/api/v1/links/${KNOWN}`, {
      headers: { ...keyed, "if-none-match": first.direct.etag! },
    });
    expect(conditional.direct).toEqual(conditional.express);
    for (const method of ["HEAD", "DELETE", "PATCH"]) {
      const { express, direct } = await both(`/api/v1/links/${KNOWN}`, { method, headers: keyed });
      expect(direct).toEqual(express);
    }
  });
});
