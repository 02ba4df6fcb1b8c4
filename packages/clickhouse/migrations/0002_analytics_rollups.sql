-- Daily rollups for the analytics API, and the link dimension's public-sharing settings.
--
-- Counts over one link with a million clicks, or an account with ten million, must answer in well
-- under 100 ms, so queries read pre-aggregated days instead of raw clicks. Materialized views fill
-- the rollups from each insert into `clicks`. They add, so a click inserted twice would be counted
-- twice here even though `clicks` itself collapses the copy: the click consumer therefore inserts
-- only clicks whose click_id is not stored yet (docs/decisions/0007-analytics-rollups-exactly-once.md).
-- Rows of a SummingMergeTree are summed on merge, which is eventual: always read with sum().

-- Per link and day: human and bot clicks. Ordered by account first so the account summary reads
-- one contiguous range; a link query names both ids.
CREATE TABLE IF NOT EXISTS link_daily (
  account_id UUID,
  link_id UUID,
  day Date,
  clicks UInt64,
  bot_clicks UInt64
)
ENGINE = SummingMergeTree((clicks, bot_clicks))
PARTITION BY toYYYYMM(day)
ORDER BY (account_id, link_id, day);

CREATE MATERIALIZED VIEW IF NOT EXISTS link_daily_mv TO link_daily AS
SELECT
  account_id,
  link_id,
  toDate(ts) AS day,
  countIf(is_bot = 0) AS clicks,
  countIf(is_bot = 1) AS bot_clicks
FROM clicks
GROUP BY account_id, link_id, day;

-- Per link, dimension, day and value: human clicks only (bots are excluded from every breakdown).
-- `value` is '' for unknown (and for direct traffic in the referrer dimension: the consumer stores
-- an empty Referer as NULL, so '' cannot be a real referrer); `country` is set for cities only.
CREATE TABLE IF NOT EXISTS link_dim_daily (
  link_id UUID,
  dim Enum8('referrer' = 1, 'country' = 2, 'city' = 3, 'device' = 4, 'browser' = 5, 'os' = 6),
  day Date,
  value String,
  country LowCardinality(String),
  clicks UInt64
)
ENGINE = SummingMergeTree(clicks)
PARTITION BY toYYYYMM(day)
ORDER BY (link_id, dim, day, value, country);

CREATE MATERIALIZED VIEW IF NOT EXISTS link_dim_daily_mv TO link_dim_daily AS
SELECT
  link_id,
  tupleElement(d, 1) AS dim,
  toDate(ts) AS day,
  tupleElement(d, 2) AS value,
  tupleElement(d, 3) AS country,
  count() AS clicks
FROM clicks
ARRAY JOIN [
  -- Columns are qualified: the output alias `country` would otherwise shadow clicks.country here.
  ('referrer', ifNull(clicks.referrer, ''), ''),
  ('country', toString(clicks.country), ''),
  ('city', clicks.city, if(clicks.city = '', '', toString(clicks.country))),
  ('device', toString(clicks.device_type), ''),
  ('browser', toString(clicks.browser), ''),
  ('os', toString(clicks.os), '')
] AS d
WHERE clicks.is_bot = 0
GROUP BY link_id, dim, day, value, country;

-- The same breakdown over all time, for the default (no period) view: one row per value instead of
-- one per value and day, so a year-old link with a million clicks reads thousands of rows, not
-- hundreds of thousands. Fed from link_dim_daily's inserts (views cascade), not from clicks again.
CREATE TABLE IF NOT EXISTS link_dim_total (
  link_id UUID,
  dim Enum8('referrer' = 1, 'country' = 2, 'city' = 3, 'device' = 4, 'browser' = 5, 'os' = 6),
  value String,
  country LowCardinality(String),
  clicks UInt64
)
ENGINE = SummingMergeTree(clicks)
ORDER BY (link_id, dim, value, country);

CREATE MATERIALIZED VIEW IF NOT EXISTS link_dim_total_mv TO link_dim_total AS
SELECT link_id, dim, value, country, sum(clicks) AS clicks
FROM link_dim_daily
GROUP BY link_id, dim, value, country;

-- Unique visitors per link and day. Visitor hashes use a salt that changes every day, so one
-- person is a different hash on each day and a period's unique visitors are the sum of its days.
-- A uniqExact state is a set: a duplicate insert does not change it.
CREATE TABLE IF NOT EXISTS link_visitors_daily (
  link_id UUID,
  day Date,
  visitors AggregateFunction(uniqExact, UInt64)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (link_id, day);

CREATE MATERIALIZED VIEW IF NOT EXISTS link_visitors_daily_mv TO link_visitors_daily AS
SELECT link_id, toDate(ts) AS day, uniqExactState(visitor_hash) AS visitors
FROM clicks
WHERE is_bot = 0
GROUP BY link_id, day;

-- Public analytics (GET /api/v1/public/analytics/:short_code) decide from the dimension whether a
-- link shares its analytics and which sections. ClickHouse has no nullable arrays, hence the flag:
-- shares_all_fields = 1 is the API's `analytics_shared_fields: null`.
ALTER TABLE links ADD COLUMN IF NOT EXISTS analytics_public UInt8 DEFAULT 0;
ALTER TABLE links ADD COLUMN IF NOT EXISTS shares_all_fields UInt8 DEFAULT 1;
ALTER TABLE links ADD COLUMN IF NOT EXISTS analytics_shared_fields Array(LowCardinality(String));
-- The summary's active_links counts links that are active and not expired.
ALTER TABLE links ADD COLUMN IF NOT EXISTS expires_at Nullable(DateTime64(3, 'UTC'));

-- The dimension is ordered by link_id; public lookups go by short code and the summary by account.
ALTER TABLE links ADD INDEX IF NOT EXISTS links_short_code short_code TYPE bloom_filter GRANULARITY 1;
ALTER TABLE links ADD INDEX IF NOT EXISTS links_account account_id TYPE bloom_filter GRANULARITY 1;
ALTER TABLE links MATERIALIZE INDEX links_short_code;
ALTER TABLE links MATERIALIZE INDEX links_account;

-- The consumer's duplicate check looks click ids up within a link and day; click ids are UUIDv7,
-- so within a (link, day) range they are sorted by time and a min/max per granule prunes well.
ALTER TABLE clicks ADD INDEX IF NOT EXISTS clicks_click_id click_id TYPE minmax GRANULARITY 1;
ALTER TABLE clicks MATERIALIZE INDEX clicks_click_id;
