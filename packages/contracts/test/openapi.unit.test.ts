import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { API_ROUTES, buildOpenApiDocument, ROUTE_DEFS, toOpenApiPath } from "../src/index.ts";
import { account, link } from "./samples.ts";

// biome-ignore lint/suspicious/noExplicitAny: the test walks an untyped JSON document by path
type Json = Record<string, any>;

const doc = buildOpenApiDocument({ baseUrl: "https://kurz.example.com/" }) as Json;
const PUBLIC_PATHS = [
  "/api/v1/auth/register",
  "/api/v1/auth/login",
  "/api/v1/public/analytics/{short_code}",
  "/api/v1/images/{id}",
  "/api/v1/invitations/{token}/accept",
  "/api/v1/auth/password-reset",
  "/api/v1/auth/password-reset/{token}",
  "/api/v1/auth/email/{token}",
  "/api/v1/auth/login/two-factor",
  "/api/v1/auth/login/passkey/options",
  "/api/v1/auth/login/passkey",

  "/api/v1/auth/sso",
  "/api/v1/auth/oidc/start",
  "/api/v1/auth/oidc/callback",
];
const METHODS = ["get", "put", "post", "patch", "delete"] as const;

function operations(document: Json): { method: string; path: string; op: Json }[] {
  return Object.entries(document.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ method, path, op: item[method] as Json })),
  );
}

function jsonSchemaValidator() {
  // ajv-formats is CommonJS whose function is also its `default` member, the only form NodeNext types.
  const addFormats = addFormatsModule.default;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv;
}

function operation(method: string, path: string): Json {
  const op = doc.paths[path]?.[method];
  if (!op) throw new Error(`${method} ${path} missing from the document`);
  return op;
}

describe("OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("holds only valid JSON Schema 2020-12 schemas (the OpenAPI validator does not look inside them)", () => {
    const ajv = jsonSchemaValidator();
    for (const [name, schema] of Object.entries(doc.components.schemas as Json)) {
      expect(ajv.validateSchema(schema), `${name}: ${ajv.errorsText()}`).toBe(true);
    }
    const broken = { ...doc.components.schemas.Link, type: 5 };
    expect(ajv.validateSchema(broken)).toBe(false);
  });

  it("agrees with the zod schemas on documented samples", async () => {
    const validator = new Validator();
    await validator.validate(structuredClone(doc));
    const resolved = validator.resolveRefs() as Json;
    const ajv = jsonSchemaValidator();
    const responseSchema = (method: string, path: string, status: string) =>
      ajv.compile(resolved.paths[path][method].responses[status].content["application/json"].schema);
    const bodySchema = (method: string, path: string) =>
      ajv.compile(resolved.paths[path][method].requestBody.content["application/json"].schema);

    expect(
      responseSchema(
        "get",
        "/api/v1/links/{id}",
        "200",
      )({ success: true, data: { ...link, analytics_shared_fields: null } }),
    ).toBe(true);
    expect(responseSchema("get", "/api/v1/links/{id}", "200")({ success: true, data: link })).toBe(false);
    const meta = { page: 1, per_page: 20, total: 1, total_pages: 1 };
    expect(responseSchema("get", "/api/v1/links", "200")({ success: true, data: [link], meta })).toBe(true);
    expect(responseSchema("get", "/api/v1/account", "200")({ success: true, data: account })).toBe(true);
    const error = { success: false, error: { code: "NOT_FOUND", message: "Link not found" } };
    expect(responseSchema("delete", "/api/v1/links/{id}", "404")(error)).toBe(true);
    expect(responseSchema("get", "/api/domains", "401")({ error: 1, message: "Invalid API key" })).toBe(true);

    const create = bodySchema("post", "/api/v1/links");
    expect(create({ url: "https://example.com", custom_alias: "spring-sale" })).toBe(true);
    expect(create({ url: "https://example.com", custom_alias: "-bad" })).toBe(false);
    expect(bodySchema("patch", "/api/v1/links/{id}")({ original_url: "https://example.com" })).toBe(false);
  });

  it("documents exactly the routes in API_ROUTES", () => {
    const documented = operations(doc)
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
      .sort();
    const listed = API_ROUTES.map(({ method, path }) => `${method} ${toOpenApiPath(path)}`).sort();
    expect(documented).toEqual(listed);
    expect(new Set(listed).size).toBe(listed.length);
  });

  it("lists every documented v1 and older-API route and the key, session and public-analytics extensions", () => {
    const expected = [
      "POST /api/v1/auth/register",
      "POST /api/v1/auth/login",
      "POST /api/v1/auth/logout",
      "GET /api/v1/auth/session",
      "POST /api/v1/auth/confirm",
      "GET /api/v1/auth/sessions",
      "DELETE /api/v1/auth/sessions",
      "GET /api/v1/account",
      "PATCH /api/v1/account",
      "POST /api/v1/account/password",
      "GET /api/v1/account/usage",
      "POST /api/v1/links",
      "GET /api/v1/links",
      "GET /api/v1/links/:id",
      "PATCH /api/v1/links/:id",
      "DELETE /api/v1/links/:id",
      "POST /api/v1/links/bulk",
      "DELETE /api/v1/links/bulk",
      "GET /api/v1/analytics/:link_id",
      "GET /api/v1/analytics/summary",
      "GET /api/v1/qr/:short_code",
      "POST /api/v1/account/keys",
      "DELETE /api/v1/account/keys/:id",
      "GET /api/v1/public/analytics/:short_code",
      "POST /api/v1/imports",
      "GET /api/v1/imports",
      "GET /api/v1/imports/:id",
      "GET /api/v1/imports/:id/attention",
      "GET /api/v1/imports/:id/errors",
      "GET /api/v1/exports/links",
      "GET /api/v1/exports/analytics",
      "POST /api/v1/webhooks",
      "GET /api/v1/webhooks",
      "GET /api/v1/webhooks/:id",
      "PATCH /api/v1/webhooks/:id",
      "DELETE /api/v1/webhooks/:id",
      "POST /api/v1/webhooks/:id/rotate-secret",
      "GET /api/v1/webhooks/:id/deliveries",
      "GET /api/account",
      "PUT /api/account/update",
      "GET /api/domains",
      "POST /api/domain/add",
      "POST /api/domain/:id/verify",
      "PUT /api/domain/:id/update",
      "DELETE /api/domain/:id/delete",
      "GET /api/overlay",
      "GET /api/campaigns",
      "POST /api/campaign/add",
      "POST /api/campaign/:campaignid/assign/:linkid",
      "PUT /api/campaign/:id/update",
      "DELETE /api/campaign/:id/delete",
      "GET /api/channels",
      "POST /api/channel/add",
      "PUT /api/channel/:id/update",
      "DELETE /api/channel/:id/delete",
      "POST /api/channel/:channelid/assign/:linkid",
      // For the dashboard: overlays that show, campaign and channel membership.
      "POST /api/overlay/add",
      "GET /api/overlay/:id",
      "PUT /api/overlay/:id/update",
      "DELETE /api/overlay/:id/delete",
      "GET /api/overlay/:id/submissions",
      "GET /api/overlay/:id/submissions/export",
      "GET /api/campaign/:id/links",
      "PUT /api/campaign/:campaignid/weight/:linkid",
      "DELETE /api/campaign/:campaignid/remove/:linkid",
      "DELETE /api/channel/:channelid/remove/:linkid",
      "GET /api/v1/analytics/campaigns/:id",
      "GET /api/v1/users/me/deletion-preview",
      "DELETE /api/v1/users/me",
      "GET /api/v1/overlays",
      "POST /api/v1/overlays",
      "GET /api/v1/overlays/:id",
      "PATCH /api/v1/overlays/:id",
      "DELETE /api/v1/overlays/:id",
      "GET /api/v1/overlays/:id/submissions",
      "GET /api/v1/overlays/:id/submissions/export",
      // Forgotten passwords and e-mail address changes.
      "POST /api/v1/auth/password-reset",
      "POST /api/v1/auth/password-reset/:token",
      "POST /api/v1/auth/email",
      "POST /api/v1/auth/email/:token",
      // Workspaces, members and invitations.
      "GET /api/v1/workspaces",
      "POST /api/v1/workspaces",
      "GET /api/v1/workspaces/:id",
      "PATCH /api/v1/workspaces/:id",
      "DELETE /api/v1/workspaces/:id",
      "GET /api/v1/workspaces/:id/members",
      "PATCH /api/v1/workspaces/:id/members/:user_id",
      "DELETE /api/v1/workspaces/:id/members/:user_id",
      "POST /api/v1/workspaces/:id/leave",
      "POST /api/v1/workspaces/:id/invitations",
      "GET /api/v1/workspaces/:id/invitations",
      "DELETE /api/v1/workspaces/:id/invitations/:invitation_id",
      "POST /api/v1/invitations/:token/accept",
      // Two-factor sign-in and passkeys.
      "POST /api/v1/auth/login/two-factor",
      "GET /api/v1/auth/two-factor",
      "POST /api/v1/auth/two-factor/totp",
      "POST /api/v1/auth/two-factor/totp/confirm",
      "DELETE /api/v1/auth/two-factor/totp",
      "POST /api/v1/auth/two-factor/recovery-codes",
      "GET /api/v1/auth/passkeys",
      "POST /api/v1/auth/passkeys/options",
      "POST /api/v1/auth/passkeys",
      "PATCH /api/v1/auth/passkeys/:id",
      "DELETE /api/v1/auth/passkeys/:id",
      "POST /api/v1/auth/login/passkey/options",
      "POST /api/v1/auth/login/passkey",

      // Single sign-on.
      "GET /api/v1/auth/sso",
      "GET /api/v1/auth/oidc/start",
      "GET /api/v1/auth/oidc/callback",
      "GET /api/v1/workspaces/:id/sso",
      "PUT /api/v1/workspaces/:id/sso",
      "DELETE /api/v1/workspaces/:id/sso",

      "GET /api/v1/audit-log",

      // Smart links: preview images and UTM templates.
      "POST /api/v1/images",
      "GET /api/v1/images/:id",
      "GET /api/v1/utm-templates",
      "POST /api/v1/utm-templates",
      "DELETE /api/v1/utm-templates/:id",

      // A link's destination health.
      "GET /api/v1/links/:id/health",
      "POST /api/v1/links/:id/health/check",
    ];
    expect(API_ROUTES.map(({ method, path }) => `${method} ${path}`).sort()).toEqual(expected.sort());
    for (const route of API_ROUTES) {
      expect(route.tag === "legacy", route.path).toBe(!route.path.startsWith("/api/v1/"));
      expect(operation(route.method.toLowerCase(), toOpenApiPath(route.path)).tags).toEqual([route.tag]);
    }
  });

  it("serves from the base URL and requires a key or session except on sign-up, sign-in, public analytics, uploaded images and accepting an invitation", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: "https://kurz.example.com" }]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes.sessionCookie).toMatchObject({
      type: "apiKey",
      in: "cookie",
      name: "kurz_session",
    });
    expect(doc.security).toEqual([{ bearerAuth: [] }, { sessionCookie: [] }]);
    for (const { path, op } of operations(doc)) {
      if (PUBLIC_PATHS.includes(path)) expect(op.security, path).toEqual([]);
      else if (path.startsWith("/api/v1/auth/") || path.startsWith("/api/v1/users/me"))
        expect(op.security, path).toEqual([{ sessionCookie: [] }]);
      else expect(op.security, path).toBeUndefined();
    }
  });

  it("gives every operation a unique id", () => {
    const ids = operations(doc).map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === "string" && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("describes failures with the error envelope of each API generation, and rate-limit headers on every response", () => {
    for (const { path, op } of operations(doc)) {
      const envelope = path.startsWith("/api/v1/") ? "ErrorEnvelope" : "LegacyErrorEnvelope";
      const statuses = Object.keys(op.responses);
      expect(statuses, path).toEqual(expect.arrayContaining(["429", "500"]));
      if (!PUBLIC_PATHS.includes(path) || path === "/api/v1/auth/login") {
        expect(statuses, path).toContain("401");
      }
      for (const [status, response] of Object.entries(op.responses as Json)) {
        expect(Object.keys(response.headers), `${path} ${status}`).toEqual(
          expect.arrayContaining(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]),
        );
        // X-API-Version on every versioned answer only (docs/api.md, "Versions").
        expect(Object.keys(response.headers).includes("X-API-Version"), `${path} ${status}`).toBe(
          envelope === "ErrorEnvelope",
        );
        if (Number(status) >= 400) {
          expect(response.content["application/json"].schema.$ref).toBe(`#/components/schemas/${envelope}`);
        }
      }
      expect(Object.keys(op.responses["429"].headers)).toContain("Retry-After");
    }
  });

  it("uses the contract schemas for bodies and documents the route-specific errors", () => {
    const create = operation("post", "/api/v1/links");
    expect(create.requestBody.content["application/json"].schema.$ref).toBe(
      "#/components/schemas/CreateLinkBody",
    );
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(["201", "400", "403", "409"]));

    const patch = operation("patch", "/api/v1/links/{id}");
    expect(doc.components.schemas.UpdateLinkBody.additionalProperties).toBe(false);
    expect(patch.responses["400"].description).toContain("BAD_REQUEST");
    expect(patch.parameters).toEqual([expect.objectContaining({ in: "path", name: "id", required: true })]);

    const get = operation("get", "/api/v1/links/{id}");
    const linkRef = get.responses["200"].content["application/json"].schema.properties.data.$ref;
    expect(linkRef).toBe("#/components/schemas/LinkWithSharedFields");
    expect(doc.components.schemas.LinkWithSharedFields.required).toContain("analytics_shared_fields");
  });

  it("documents list paging and QR parameters with their defaults and bounds", () => {
    const list = operation("get", "/api/v1/links");
    const param = (op: Json, name: string) => op.parameters.find((p: Json) => p.name === name)?.schema;
    expect(param(list, "per_page")).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 20 });
    expect(param(list, "page")).toMatchObject({ type: "integer", minimum: 1, default: 1 });
    expect(list.responses["200"].content["application/json"].schema.required).toEqual([
      "success",
      "data",
      "meta",
    ]);

    const qr = operation("get", "/api/v1/qr/{short_code}");
    expect(param(qr, "size")).toMatchObject({ type: "integer", minimum: 100, maximum: 1000, default: 400 });
    expect(param(qr, "margin")).toMatchObject({ type: "integer", minimum: 0, maximum: 4, default: 2 });
    expect(param(qr, "color")).toMatchObject({ default: "1A1410" });
    expect(Object.keys(qr.responses["200"].content).sort()).toEqual(["image/png", "image/svg+xml"]);
    expect(qr.responses["404"].content["application/json"]).toBeDefined();
  });

  it("documents a link's overlay (create and update) and branded domain (create), and a domain's delete count", async () => {
    const validator = new Validator();
    await validator.validate(structuredClone(doc));
    const resolved = validator.resolveRefs() as Json;
    const body = (method: string, path: string) =>
      resolved.paths[path][method].requestBody.content["application/json"].schema.properties as Json;
    expect(Object.keys(body("post", "/api/v1/links"))).toEqual(
      expect.arrayContaining(["overlay_id", "domain"]),
    );
    expect(Object.keys(body("patch", "/api/v1/links/{id}"))).toContain("overlay_id");
    const deleted =
      resolved.paths["/api/domain/{id}/delete"].delete.responses["200"].content["application/json"];
    expect(deleted.schema.required).toEqual(expect.arrayContaining(["error", "message", "links_deleted"]));
    const listed = resolved.paths["/api/domains"].get.responses["200"].content["application/json"].schema;
    expect(listed.properties.data.properties.domains.items.required).toContain("links");
  });

  it("documents legacy lists with a string error member", () => {
    const domains = operation("get", "/api/domains");
    const schema = domains.responses["200"].content["application/json"].schema;
    expect(schema.properties.error).toEqual({ type: "string", const: "0" });
    expect(schema.properties.data.required).toEqual(
      expect.arrayContaining(["result", "perpage", "currentpage", "nextpage", "maxpage", "domains"]),
    );
  });

  it("documents a 400 on every operation that takes a query, path parameters or a body (they may not parse)", () => {
    // A route whose only input is a path parameter that answers 404 when it does not parse has none.
    const onlyNotFound = new Set(
      ROUTE_DEFS.filter((d) => d.invalidParams && !d.query && !d.body && !d.bodyParser).map(
        (d) => `${d.method} ${toOpenApiPath(d.path)}`,
      ),
    );
    const undocumented: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths as Json))
      for (const [method, op] of Object.entries(methods as Json) as [string, Json][])
        if ((op.parameters?.length ?? 0) > 0 || op.requestBody)
          if (!op.responses["400"] && !onlyNotFound.has(`${method.toUpperCase()} ${path}`))
            undocumented.push(`${method.toUpperCase()} ${path}`);
    expect(undocumented).toEqual([]);
  });
});
