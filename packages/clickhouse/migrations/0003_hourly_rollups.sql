-- Hourly rollups, so that a period with times of day reads hours instead of raw clicks, and hourly
-- time series (interval=hour) read one row per link and hour (docs/decisions/0015-analytics-hourly-rollups.md).
--
-- The hourly tables are now the ones fed from `clicks`; the daily ones are fed from the hourly
-- inserts (views cascade), so each click still passes through three views, and the daily views
-- aggregate the already-grouped hourly blocks. Exactly once as before (ADR 0007): the click consumer
-- inserts only clicks not stored yet, and the views add.
--
-- Existing data directories: the hourly tables are rebuilt from raw clicks (FINAL, so exact), which
-- are kept forever. Statements run in an order that makes a rerun after a failure safe: every view
-- that writes into an hourly table or out of one is dropped first, the hourly tables are emptied and
-- refilled, and only then are the views created. Nothing may insert clicks while this runs: the
-- service migrates before it starts consuming (with several instances on a server, let one start
-- first).

CREATE TABLE IF NOT EXISTS link_hourly (
  account_id UUID,
  link_id UUID,
  hour DateTime('UTC'),
  clicks UInt64,
  bot_clicks UInt64
)
ENGINE = SummingMergeTree((clicks, bot_clicks))
PARTITION BY toYYYYMM(hour)
ORDER BY (account_id, link_id, hour);

CREATE TABLE IF NOT EXISTS link_dim_hourly (
  link_id UUID,
  dim Enum8('referrer' = 1, 'country' = 2, 'city' = 3, 'device' = 4, 'browser' = 5, 'os' = 6),
  hour DateTime('UTC'),
  value String,
  country LowCardinality(String),
  clicks UInt64
)
ENGINE = SummingMergeTree(clicks)
PARTITION BY toYYYYMM(hour)
ORDER BY (link_id, dim, hour, value, country);

-- The day's salt is in every hash (migration 0002), so hours of one day merge into that day's set.
CREATE TABLE IF NOT EXISTS link_visitors_hourly (
  link_id UUID,
  hour DateTime('UTC'),
  visitors AggregateFunction(uniqExact, UInt64)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (link_id, hour);

DROP VIEW IF EXISTS link_hourly_mv;
DROP VIEW IF EXISTS link_dim_hourly_mv;
DROP VIEW IF EXISTS link_visitors_hourly_mv;
DROP VIEW IF EXISTS link_daily_from_hourly_mv;
DROP VIEW IF EXISTS link_dim_daily_from_hourly_mv;
DROP VIEW IF EXISTS link_visitors_daily_from_hourly_mv;

TRUNCATE TABLE IF EXISTS link_hourly;
TRUNCATE TABLE IF EXISTS link_dim_hourly;
TRUNCATE TABLE IF EXISTS link_visitors_hourly;

INSERT INTO link_hourly
SELECT account_id, link_id, toStartOfHour(ts) AS hour, countIf(is_bot = 0), countIf(is_bot = 1)
FROM clicks FINAL
GROUP BY account_id, link_id, hour;

INSERT INTO link_dim_hourly
SELECT link_id, tupleElement(d, 1) AS dim, toStartOfHour(ts) AS hour, tupleElement(d, 2) AS value,
       tupleElement(d, 3) AS country, count()
FROM (
  SELECT link_id, ts, ifNull(referrer, '') AS src_referrer, toString(country) AS src_country,
         city AS src_city, toString(device_type) AS src_device, toString(browser) AS src_browser,
         toString(os) AS src_os
  FROM clicks FINAL WHERE is_bot = 0
)
ARRAY JOIN [
  ('referrer', src_referrer, ''),
  ('country', src_country, ''),
  ('city', src_city, if(src_city = '', '', src_country)),
  ('device', src_device, ''),
  ('browser', src_browser, ''),
  ('os', src_os, '')
] AS d
GROUP BY link_id, dim, hour, value, country;

INSERT INTO link_visitors_hourly
SELECT link_id, toStartOfHour(ts) AS hour, uniqExactState(visitor_hash)
FROM clicks FINAL WHERE is_bot = 0
GROUP BY link_id, hour;

-- From here on, clicks feed the hourly tables (the same grouping as the daily views of 0002).
CREATE MATERIALIZED VIEW IF NOT EXISTS link_hourly_mv TO link_hourly AS
SELECT
  account_id,
  link_id,
  toStartOfHour(ts) AS hour,
  countIf(is_bot = 0) AS clicks,
  countIf(is_bot = 1) AS bot_clicks
FROM clicks
GROUP BY account_id, link_id, hour;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_dim_hourly_mv TO link_dim_hourly AS
SELECT
  link_id,
  tupleElement(d, 1) AS dim,
  toStartOfHour(ts) AS hour,
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
GROUP BY link_id, dim, hour, value, country;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_visitors_hourly_mv TO link_visitors_hourly AS
SELECT link_id, toStartOfHour(ts) AS hour, uniqExactState(visitor_hash) AS visitors
FROM clicks
WHERE is_bot = 0
GROUP BY link_id, hour;

-- The daily rollups now add up the hourly blocks instead of grouping every click a second time.
-- link_dim_total_mv still follows link_dim_daily's inserts, so the all-time breakdown is unchanged.
DROP VIEW IF EXISTS link_daily_mv;
DROP VIEW IF EXISTS link_dim_daily_mv;
DROP VIEW IF EXISTS link_visitors_daily_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_daily_from_hourly_mv TO link_daily AS
SELECT account_id, link_id, toDate(hour) AS day, sum(clicks) AS clicks, sum(bot_clicks) AS bot_clicks
FROM link_hourly
GROUP BY account_id, link_id, day;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_dim_daily_from_hourly_mv TO link_dim_daily AS
SELECT link_id, dim, toDate(hour) AS day, value, country, sum(clicks) AS clicks
FROM link_dim_hourly
GROUP BY link_id, dim, day, value, country;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_visitors_daily_from_hourly_mv TO link_visitors_daily AS
SELECT link_id, toDate(hour) AS day, uniqExactMergeState(visitors) AS visitors
FROM link_visitors_hourly
GROUP BY link_id, day;
