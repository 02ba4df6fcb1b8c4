/** Samples shaped as the API documents them, shared by the tests. */
export const LINK_ID = "0f8fad5b-d9cb-469f-a165-70867728950e";
export const ACCOUNT_ID = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
export const KEY_ID = "16fd2706-8baf-433b-82eb-8c7fada847da";

export const link = {
  id: LINK_ID,
  short_code: "my-link",
  short_url: "https://kurz.example.com/my-link",
  original_url: "https://example.com/some/page?utm_source=x",
  title: "Example page",
  is_active: true,
  has_password: false,
  expires_at: null,
  clicks_count: 0,
  analytics_public: false,
  created_at: "2026-01-31T12:00:00.000Z",
  updated_at: "2026-01-31T12:00:00.000Z",
};

export const account = {
  id: ACCOUNT_ID,
  email: "owner@example.com",
  link_limit: 500,
  default_expiry_hours: null,
  total_links: 12,
  total_clicks: 345,
  created_at: "2025-06-01T08:30:00.000Z",
};

export const apiKey = {
  id: KEY_ID,
  name: "CI",
  key_prefix: "kurz_live_AbCd",
  last_used_at: null,
  rate_limit_per_minute: 60,
  rate_limit_per_hour: 1000,
  expires_at: null,
  created_at: "2025-06-01T08:30:00.000Z",
};
