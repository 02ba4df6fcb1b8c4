-- Decision 0049: the rollups are fed from `click_feed`, a Null table that `clicks` feeds, instead of
-- from `clicks` itself, so that a link's rollups can be rebuilt from its raw clicks (by inserting
-- them into click_feed) without storing them in `clicks` a second time. The click writer does that
-- when embedded chDB died in the middle of an insert's commit: ClickHouse records a block in a
-- table's deduplication log before it commits the block's part, so a process killed in between
-- leaves a record of a block that was never stored, and inserting that block again with its token
-- is dropped as a copy (decision 0030 relied on exactly that repeat).
-- Nothing else changes: the same four views, reading the same columns, under the same names.
-- Stop the analytics consumers while this runs (docs/analytics.md): a click inserted between a
-- dropped view and click_feed_mv would be missing from the rollups.

CREATE TABLE IF NOT EXISTS click_feed (
  click_id UUID,
  link_id UUID,
  account_id UUID,
  short_code String,
  ts DateTime64(3, 'UTC'),
  referrer Nullable(String),
  country LowCardinality(String),
  city String,
  device_type LowCardinality(String),
  browser LowCardinality(String),
  os LowCardinality(String),
  is_bot UInt8,
  visitor_hash UInt64,
  host String
)
ENGINE = Null;

DROP VIEW IF EXISTS link_hourly_mv;
DROP VIEW IF EXISTS link_visitors_hourly_mv;
DROP VIEW IF EXISTS link_stats_rows_mv;
DROP VIEW IF EXISTS link_dim_total_from_clicks_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_hourly_mv TO link_hourly AS
SELECT
  account_id,
  link_id,
  toStartOfHour(ts) AS hour,
  countIf(is_bot = 0) AS clicks,
  countIf(is_bot = 1) AS bot_clicks
FROM click_feed
GROUP BY account_id, link_id, hour;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_visitors_hourly_mv TO link_visitors_hourly AS
SELECT link_id, toStartOfHour(ts) AS hour, uniqExactState(visitor_hash) AS visitors
FROM click_feed
WHERE is_bot = 0
GROUP BY link_id, hour;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_rows_mv TO link_stats_rows AS
SELECT link_id, ts, click_id, tupleElement(r, 1) AS kind, tupleElement(r, 2) AS a, tupleElement(r, 3) AS b,
       tupleElement(r, 4) AS c, toUInt64(tupleElement(r, 5)) AS n, toUInt64(tupleElement(r, 6)) AS bots, visitor_hash
FROM click_feed
ARRAY JOIN arrayConcat(
  [('s', '', '', '', toUInt8(click_feed.is_bot = 0), click_feed.is_bot)],
  if(click_feed.is_bot = 0, [
    -- Columns are qualified: an output alias would otherwise shadow a column of click_feed here.
    ('d', 'referrer', ifNull(click_feed.referrer, ''), '', 1, 0),
    ('d', 'country', toString(click_feed.country), '', 1, 0),
    ('d', 'city', click_feed.city, if(click_feed.city = '', '', toString(click_feed.country)), 1, 0),
    ('d', 'device', toString(click_feed.device_type), '', 1, 0),
    ('d', 'browser', toString(click_feed.browser), '', 1, 0),
    ('d', 'os', toString(click_feed.os), '', 1, 0),
    ('v', '', '', '', 0, 0)
  ], [])
) AS r;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_dim_total_from_clicks_mv TO link_dim_total AS
SELECT
  link_id,
  tupleElement(d, 1) AS dim,
  tupleElement(d, 2) AS value,
  tupleElement(d, 3) AS country,
  count() AS clicks
FROM click_feed
ARRAY JOIN [
  ('referrer', ifNull(click_feed.referrer, ''), ''),
  ('country', toString(click_feed.country), ''),
  ('city', click_feed.city, if(click_feed.city = '', '', toString(click_feed.country))),
  ('device', toString(click_feed.device_type), ''),
  ('browser', toString(click_feed.browser), ''),
  ('os', toString(click_feed.os), '')
] AS d
WHERE click_feed.is_bot = 0
GROUP BY link_id, dim, value, country;

-- Last: from here on every insert into clicks feeds the rollups again.
CREATE MATERIALIZED VIEW IF NOT EXISTS click_feed_mv TO click_feed AS
SELECT click_id, link_id, account_id, short_code, ts, referrer, country, city, device_type, browser, os,
       is_bot, visitor_hash, host
FROM clicks;
