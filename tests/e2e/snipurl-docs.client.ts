// SnipURL's "Roll Your Own" JavaScript client, re-typed in TypeScript with the same methods and the
// same requests (source: github.com/mdsaad31/snipurl-docs, content/sdks.mdx at commit 447aef3, class
// `SnipURL`). Only what a caller passes in differs: the base URL (the docs hard-code SnipURL's host),
// and a `fetch` that records each response so the test can check the headers every answer carries.
// Kept as SnipURL wrote it on purpose, including its quirks: Content-Type on bodiless requests, a
// retry on 429 after Retry-After, and `error.message` as the thrown message.

export interface SnipEnvelope<T = unknown> {
  success: boolean;
  data: T;
  meta?: Record<string, unknown>;
  error?: { code: string; message: string; details?: unknown };
}

interface RequestOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export class SnipURL {
  readonly baseUrl: string;

  constructor(
    private readonly apiKey: string,
    origin: string,
    private readonly fetchFn: typeof fetch = fetch,
  ) {
    this.baseUrl = `${origin}/api/v1`;
  }

  async request<T = unknown>(endpoint: string, options: RequestOptions = {}): Promise<SnipEnvelope<T>> {
    const response = await this.fetchFn(`${this.baseUrl}${endpoint}`, {
      ...(options.method !== undefined ? { method: options.method } : {}),
      headers: {
        Authorization: `Bearer ${this.apiKey}`,
        "Content-Type": "application/json",
        ...options.headers,
      },
      body: options.body ? JSON.stringify(options.body) : null,
    });

    if (response.status === 429) {
      const retryAfter = Number.parseInt(response.headers.get("Retry-After") || "60", 10);
      await new Promise((r) => setTimeout(r, retryAfter * 1000));
      return this.request(endpoint, options);
    }

    const data = (await response.json()) as SnipEnvelope<T>;
    if (!data.success) {
      throw new Error(data.error?.message || "API request failed");
    }
    return data;
  }

  // Links
  createLink(url: string, options: Record<string, unknown> = {}) {
    return this.request("/links", { method: "POST", body: { url, ...options } });
  }

  listLinks(params: Record<string, string> = {}) {
    const query = new URLSearchParams(params).toString();
    return this.request(`/links${query ? `?${query}` : ""}`);
  }

  getLink(id: string) {
    return this.request(`/links/${id}`);
  }

  updateLink(id: string, updates: Record<string, unknown>) {
    return this.request(`/links/${id}`, { method: "PATCH", body: updates });
  }

  deleteLink(id: string) {
    return this.request(`/links/${id}`, { method: "DELETE" });
  }

  // Analytics
  getAnalytics(linkId: string, params: Record<string, string> = {}) {
    const query = new URLSearchParams(params).toString();
    return this.request(`/analytics/${linkId}${query ? `?${query}` : ""}`);
  }

  getSummary(params: Record<string, string> = {}) {
    const query = new URLSearchParams(params).toString();
    return this.request(`/analytics/summary${query ? `?${query}` : ""}`);
  }

  // Account
  getAccount() {
    return this.request("/account");
  }
}
