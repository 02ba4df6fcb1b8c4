// The direct path (decision 0023) must answer exactly as the Express mount of the same record does:
// one server of each, the same requests, the same statuses, bodies and headers.
import { ROUTES } from "@kurz/contracts";
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
];

const bases = { express: "", direct: "" };

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
    await serve(directRoutes({ routes, internalToken: SECRET, logger, validateResponses: true }, app()))
  ).url;
});

const keyed = forwardedHeaders(SECRET, { accountId: ACCOUNT, keyId: "key-1" });

async function both(path: string, init: RequestInit = {}) {
  const answers = await Promise.all(
    (["express", "direct"] as const).map(async (which) => {
      const res = await fetch(`${bases[which]}${path}`, init);
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
    ["another account's link", `/api/v1/links/${KNOWN}`, forwardedHeaders(SECRET, { accountId: KNOWN })],
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
