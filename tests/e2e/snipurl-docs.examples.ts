// The request examples of SnipURL's public API docs, as data (source: github.com/mdsaad31/snipurl-docs,
// content/ at commit 447aef3; `page` names the file). Each curl, JavaScript and Python example is one
// entry: the request as the example sends it (method, path under /api/v1, body, and whether it sends
// Content-Type: application/json), and what the page documents about the answer. Values are the docs'
// own (ids, short codes, aliases, dates); the test substitutes the host, the key and the ids of the
// links the docs assume exist. Prose of the docs is not copied, only what a request needs.

/** Ids and short codes the docs use for "your" links; the test maps each to a real link of the account. */
export const DOC_LINK_IDS = [
  "550e8400-e29b-41d4-a716-446655440000",
  "7c9e6679-7425-40de-944b-e07fc1f90ae7",
  "a87ff679-a2f3-e710-ab34-946655440001",
] as const;
export const DOC_SHORT_CODE = "a8Kx2m";

/** The documented field types of each object (the "Response" tables of the pages). */
export const FIELD_TYPES = {
  link: {
    id: "string",
    short_code: "string",
    short_url: "string",
    original_url: "string",
    title: "string",
    is_active: "boolean",
    has_password: "boolean",
    expires_at: "string|null",
    clicks_count: "number",
    analytics_public: "boolean",
    created_at: "string",
    updated_at: "string",
  },
  bulkItem: {
    id: "string",
    short_code: "string",
    short_url: "string",
    original_url: "string",
    title: "string",
    created_at: "string",
  },
  account: {
    id: "string",
    email: "string",
    link_limit: "number",
    default_expiry_hours: "number|null",
    total_links: "number",
    total_clicks: "number",
    created_at: "string",
  },
  usage: { current_key: "object", active_keys: "number", keys: "array" },
  currentKey: {
    id: "string",
    name: "string",
    rate_limit_per_minute: "number",
    rate_limit_per_hour: "number",
  },
  keyItem: {
    id: "string",
    name: "string",
    key_prefix: "string",
    last_used_at: "string|null",
    rate_limit_per_minute: "number",
    rate_limit_per_hour: "number",
    expires_at: "string|null",
    created_at: "string",
  },
  linkStats: {
    link_id: "string",
    short_code: "string",
    total_clicks: "number",
    time_series: "array",
    referrers: "array",
    countries: "array",
    cities: "array",
    devices: "array",
    browsers: "array",
    os: "array",
  },
  summary: {
    total_links: "number",
    active_links: "number",
    total_clicks: "number",
    clicks_over_time: "array",
    top_links: "array",
  },
  meta: { page: "number", per_page: "number", total: "number", total_pages: "number" },
} as const;
export type Shape = keyof typeof FIELD_TYPES;

export interface DocExample {
  page: string;
  /** Which example on the page: its language, and the heading when a page has several. */
  example: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Under /api/v1, with the query as the example writes it. */
  path: string;
  /** Sends Content-Type: application/json (curl -H, fetch headers, requests' json=). */
  json?: boolean;
  body?: unknown;
  expect: {
    status: number;
    /** The shape of `data` (an array of it when `list`), or "image" for a non-JSON answer. */
    data?: Shape | "image";
    list?: boolean;
    /** Members of `data` the page shows for this request. */
    match?: Record<string, unknown>;
    contentType?: string;
  };
}

const LINK = "550e8400-e29b-41d4-a716-446655440000";
const links = "content/api-reference/links";

/** An example of qr-codes/generate.mdx: the documented short code's QR with `query`, as an image. */
const qrExample = (
  example: string,
  query: string,
  contentType: "image/png" | "image/svg+xml",
): DocExample => ({
  page: "content/api-reference/qr-codes/generate.mdx",
  example,
  method: "GET",
  path: `/qr/${DOC_SHORT_CODE}${query}`,
  expect: { status: 200, data: "image", contentType },
});

export const DOC_EXAMPLES: DocExample[] = [
  // ---- getting started ----
  ...["curl", "javascript", "python"].map(
    (example): DocExample => ({
      page: "content/getting-started/index.mdx",
      example: `step 2, ${example}`,
      method: "GET",
      path: "/account",
      expect: { status: 200, data: "account" },
    }),
  ),
  {
    page: "content/getting-started/index.mdx",
    example: "step 3, curl",
    method: "POST",
    path: "/links",
    json: true,
    body: {
      url: "https://github.com/mdsaad31/SnipURL",
      custom_alias: "my-repo",
      title: "My GitHub Repository",
    },
    expect: {
      status: 201,
      data: "link",
      match: {
        short_code: "my-repo",
        original_url: "https://github.com/mdsaad31/SnipURL",
        title: "My GitHub Repository",
        is_active: true,
        has_password: false,
        expires_at: null,
        clicks_count: 0,
        analytics_public: false,
      },
    },
  },
  {
    page: "content/getting-started/index.mdx",
    example: "step 4, curl",
    method: "GET",
    path: `/analytics/${LINK}`,
    expect: { status: 200, data: "linkStats" },
  },
  {
    page: "content/index.mdx",
    example: "quick example, curl",
    method: "POST",
    path: "/links",
    json: true,
    body: { url: "https://example.com/very/long/path" },
    expect: { status: 201, data: "link", match: { original_url: "https://example.com/very/long/path" } },
  },
  ...["curl", "javascript"].map(
    (example): DocExample => ({
      page: "content/getting-started/authentication.mdx",
      example,
      method: "GET",
      path: example === "curl" ? "/links" : "/links?page=1&per_page=20",
      json: example === "javascript",
      expect: { status: 200, data: "link", list: true },
    }),
  ),
  {
    page: "content/getting-started/rate-limits.mdx",
    example: "monitor your usage, curl",
    method: "GET",
    path: "/account/usage",
    expect: { status: 200, data: "usage" },
  },

  // ---- links: create ----
  ...["curl", "javascript", "python"].map(
    (example): DocExample => ({
      page: `${links}/create.mdx`,
      example: `basic link, ${example}`,
      method: "POST",
      path: "/links",
      json: true,
      body: { url: "https://example.com/blog/my-awesome-article" },
      expect: {
        status: 201,
        data: "link",
        match: {
          original_url: "https://example.com/blog/my-awesome-article",
          is_active: true,
          has_password: false,
          expires_at: null,
          clicks_count: 0,
          analytics_public: false,
        },
      },
    }),
  ),
  {
    page: `${links}/create.mdx`,
    example: "custom alias with password and expiry, curl",
    method: "POST",
    path: "/links",
    json: true,
    body: {
      url: "https://docs.google.com/document/d/secret-doc",
      custom_alias: "team-doc",
      title: "Q3 Planning Document",
      password: "team2025",
      expires_at: "2025-12-31T23:59:59Z",
    },
    expect: {
      status: 201,
      data: "link",
      match: {
        short_code: "team-doc",
        original_url: "https://docs.google.com/document/d/secret-doc",
        title: "Q3 Planning Document",
        is_active: true,
        has_password: true,
        expires_at: "2025-12-31T23:59:59.000Z",
        clicks_count: 0,
        analytics_public: false,
      },
    },
  },

  // ---- links: list ----
  ...["curl", "javascript", "python"].map(
    (example): DocExample => ({
      page: `${links}/list.mdx`,
      example: `basic list, ${example}`,
      method: "GET",
      path: "/links?page=1&per_page=20",
      expect: { status: 200, data: "link", list: true },
    }),
  ),
  ...[
    ["search for github", "/links?search=github"],
    ["only inactive links", "/links?is_active=false"],
    ["large page with search", "/links?per_page=100&search=docs"],
  ].map(
    ([example, path]): DocExample => ({
      page: `${links}/list.mdx`,
      example: `${example}, curl`,
      method: "GET",
      path: path!,
      expect: { status: 200, data: "link", list: true },
    }),
  ),

  // ---- links: get ----
  ...["curl", "javascript", "python"].map(
    (example): DocExample => ({
      page: `${links}/get.mdx`,
      example,
      method: "GET",
      path: `/links/${LINK}`,
      expect: { status: 200, data: "link", match: { id: LINK, analytics_shared_fields: null } },
    }),
  ),

  // ---- links: update ----
  ...["curl", "javascript", "python"].map(
    (example): DocExample => ({
      page: `${links}/update.mdx`,
      example: `disable a link, ${example}`,
      method: "PATCH",
      path: `/links/${LINK}`,
      json: true,
      body: { is_active: false },
      expect: { status: 200, data: "link", match: { id: LINK, is_active: false } },
    }),
  ),
  {
    page: `${links}/update.mdx`,
    example: "set password and expiry, curl",
    method: "PATCH",
    path: `/links/${LINK}`,
    json: true,
    body: { password: "newsecret", expires_at: "2025-12-31T23:59:59Z" },
    expect: {
      status: 200,
      data: "link",
      match: { has_password: true, expires_at: "2025-12-31T23:59:59.000Z" },
    },
  },
  {
    page: `${links}/update.mdx`,
    example: "remove password, curl",
    method: "PATCH",
    path: `/links/${LINK}`,
    json: true,
    body: { password: null },
    expect: { status: 200, data: "link", match: { has_password: false } },
  },
  {
    page: `${links}/update.mdx`,
    example: "make analytics public, curl",
    method: "PATCH",
    path: `/links/${LINK}`,
    json: true,
    body: { analytics_public: true, analytics_shared_fields: ["overview", "locations", "devices"] },
    expect: { status: 200, data: "link", match: { analytics_public: true } },
  },

  // ---- analytics ----
  {
    page: "content/api-reference/analytics/link-stats.mdx",
    example: "full analytics, curl",
    method: "GET",
    path: `/analytics/${LINK}`,
    expect: { status: 200, data: "linkStats", match: { link_id: LINK, short_code: DOC_SHORT_CODE } },
  },
  ...["curl", "javascript", "python"].map(
    (example): DocExample => ({
      page: "content/api-reference/analytics/link-stats.mdx",
      example: `with date range, ${example}`,
      method: "GET",
      path: `/analytics/${LINK}?start=2025-06-01T00:00:00Z&end=2025-06-24T23:59:59Z`,
      expect: { status: 200, data: "linkStats", match: { link_id: LINK, total_clicks: 0, time_series: [] } },
    }),
  ),
  ...["curl", "javascript", "python"].map(
    (example): DocExample => ({
      page: "content/api-reference/analytics/summary.mdx",
      example,
      method: "GET",
      path: "/analytics/summary",
      expect: { status: 200, data: "summary" },
    }),
  ),
  {
    page: "content/api-reference/analytics/summary.mdx",
    example: "with date range, curl",
    method: "GET",
    path: "/analytics/summary?start=2025-06-01T00:00:00Z&end=2025-06-24T23:59:59Z",
    expect: { status: 200, data: "summary", match: { clicks_over_time: [] } },
  },

  // ---- QR codes ----
  qrExample("basic PNG, curl", "", "image/png"),
  qrExample("custom SVG, curl", "?format=svg&size=600&color=2563EB&bg=F8FAFC", "image/svg+xml"),
  qrExample("transparent background, curl", "?bg=transparent&size=500", "image/png"),
  qrExample(
    "download and display, javascript",
    "?format=svg&size=300&color=1A1410&bg=FFFFFF",
    "image/svg+xml",
  ),
  qrExample("save to file, python", "?format=png&size=500&color=2563EB&bg=FFFFFF&ec=H", "image/png"),

  // ---- account ----
  ...["curl", "javascript", "python"].map(
    (example): DocExample => ({
      page: "content/api-reference/account/info.mdx",
      example,
      method: "GET",
      path: "/account",
      expect: { status: 200, data: "account" },
    }),
  ),
  ...["curl", "javascript", "python"].map(
    (example): DocExample => ({
      page: "content/api-reference/account/usage.mdx",
      example,
      method: "GET",
      path: "/account/usage",
      expect: { status: 200, data: "usage", match: { active_keys: 1 } },
    }),
  ),
];

/** The bulk-create examples: the curl one sends five links, the JavaScript and Python ones the first three. */
export const BULK_CREATE_LINKS = [
  { url: "https://example.com/page-1", title: "Page One" },
  { url: "https://example.com/page-2", custom_alias: "page-2" },
  { url: "https://example.com/page-3" },
  { url: "https://example.com/page-4", password: "secret" },
  { url: "https://example.com/page-5", expires_at: "2025-12-31T00:00:00Z" },
];

/** content/errors.mdx, "Validation Error Details": the fields the documented tree names. */
export const DOCUMENTED_VALIDATION_FIELDS = ["url", "expires_at"] as const;

/** Messages the pages document (SnipURL's sample clients show `error.message`). */
export const DOCUMENTED_MESSAGES = {
  invalidKey: "Invalid API key.",
  linkNotFound: "Link not found.",
  aliasTaken: "This custom alias is already taken.",
  linkLimit: (n: number) => `Link limit reached (${n}). Delete existing links or upgrade your plan.`,
  rateLimited: (seconds: number) => `Rate limit exceeded. Retry after ${seconds} seconds.`,
  bulkAliasTaken: "Alias already taken",
} as const;
