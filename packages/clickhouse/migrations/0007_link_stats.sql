-- One table answers a link's analytics for any period, whole days or times of day, in one read
-- (decision 0040, issue 18). Each click is exploded once into the rows of the request's shape
-- (`kind` s: its series row; d: its six breakdown rows, humans only; v: its visitor row, humans
-- only) and stored at three levels side by side: the sums per UTC day (`level` day), per hour
-- (`level` hour), and the click's own rows (`level` click, keyed by its click id). A period reads
-- its whole days, the whole hours of its partial days and the clicks of its partial hours as three
-- key ranges of this one table, so a range with times of day costs about what the same days do.
--
-- Click rows are kept 35 days (TTL): they are ~8 rows a click, three times the raw table's size if
-- kept forever; a partial hour older than 30 days is read from raw clicks instead (link-stats.ts),
-- so the TTL's lag and a clock skew of up to 5 days never leave a span without its rows.
--
-- Visitors are arrays of the day-salted visitor hashes (migration 0002), unioned on merge and
-- counted with uniqExactArray: reading a uniqExact state builds a hash set per row read, which cost
-- more than every other part of such a request (docs/benchmarks.md, analytics).
--
-- Exactly once as the other rollups (decision 0028): the click writer's insert token is derived for
-- every dependent view, and this table keeps the same deduplication window. A copy of a click is
-- never summed at the click level either: its rows share their key with the original's.
--
-- Existing data directories: filled from raw clicks (FINAL, so exact) through the same views, before
-- the view that feeds them from new clicks exists; a rerun after a failure empties and refills it.
-- Nothing may insert clicks while this runs (the service migrates before it consumes).

CREATE TABLE IF NOT EXISTS link_stats (
  link_id UUID,
  level Enum8('day' = 0, 'hour' = 1, 'click' = 2),
  kind Enum8('s' = 1, 'd' = 2, 'v' = 3),
  t DateTime64(3, 'UTC'),
  click_id UUID,
  -- d: the dimension; s, v: ''.
  a LowCardinality(String),
  -- d: the value ('' when unknown).
  b String,
  -- d of a city: its country; else ''.
  c LowCardinality(String),
  n SimpleAggregateFunction(sum, UInt64),
  bots SimpleAggregateFunction(sum, UInt64),
  vs SimpleAggregateFunction(groupUniqArrayArray, Array(UInt64))
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(t)
ORDER BY (link_id, level, kind, t, click_id, a, b, c)
TTL toDateTime(t) + INTERVAL 35 DAY DELETE WHERE level = 'click'
-- A request reads up to nine small key ranges (three levels, three kinds); finer granules keep each
-- range from reading thousands of rows it does not need.
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 100000;

-- Each click's rows, exploded once for the three levels' views; stores nothing itself.
CREATE TABLE IF NOT EXISTS link_stats_rows (
  link_id UUID,
  ts DateTime64(3, 'UTC'),
  click_id UUID,
  kind Enum8('s' = 1, 'd' = 2, 'v' = 3),
  a String,
  b String,
  c String,
  n UInt64,
  bots UInt64,
  visitor_hash UInt64
)
ENGINE = Null;

DROP VIEW IF EXISTS link_stats_rows_mv;
TRUNCATE TABLE IF EXISTS link_stats;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_click_mv TO link_stats AS
SELECT link_id, 'click' AS level, kind, ts AS t, click_id, a, b, c, n, bots,
       if(kind = 'v', [visitor_hash], emptyArrayUInt64()) AS vs
FROM link_stats_rows;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_hour_mv TO link_stats AS
SELECT link_id, 'hour' AS level, kind, toDateTime64(toStartOfHour(ts), 3, 'UTC') AS t,
       toUUID('00000000-0000-0000-0000-000000000000') AS click_id, a, b, c,
       sum(n) AS n, sum(bots) AS bots, groupUniqArrayIf(visitor_hash, kind = 'v') AS vs
FROM link_stats_rows
GROUP BY link_id, kind, t, a, b, c;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_day_mv TO link_stats AS
SELECT link_id, 'day' AS level, kind, toDateTime64(toStartOfDay(ts), 3, 'UTC') AS t,
       toUUID('00000000-0000-0000-0000-000000000000') AS click_id, a, b, c,
       sum(n) AS n, sum(bots) AS bots, groupUniqArrayIf(visitor_hash, kind = 'v') AS vs
FROM link_stats_rows
GROUP BY link_id, kind, t, a, b, c;

INSERT INTO link_stats_rows
SELECT link_id, ts, click_id, tupleElement(r, 1) AS kind, tupleElement(r, 2) AS a, tupleElement(r, 3) AS b,
       tupleElement(r, 4) AS c, toUInt64(tupleElement(r, 5)) AS n, toUInt64(tupleElement(r, 6)) AS bots, visitor_hash
FROM (
  SELECT link_id, ts, click_id, is_bot, visitor_hash, ifNull(referrer, '') AS src_referrer,
         toString(country) AS src_country, city AS src_city, toString(device_type) AS src_device,
         toString(browser) AS src_browser, toString(os) AS src_os
  FROM clicks FINAL
)
ARRAY JOIN arrayConcat(
  [('s', '', '', '', toUInt8(is_bot = 0), is_bot)],
  if(is_bot = 0, [
    ('d', 'referrer', src_referrer, '', 1, 0),
    ('d', 'country', src_country, '', 1, 0),
    ('d', 'city', src_city, if(src_city = '', '', src_country), 1, 0),
    ('d', 'device', src_device, '', 1, 0),
    ('d', 'browser', src_browser, '', 1, 0),
    ('d', 'os', src_os, '', 1, 0),
    ('v', '', '', '', 0, 0)
  ], [])
) AS r
SETTINGS insert_deduplicate = 0;

-- From here on, every click insert (click-writer.ts) feeds the three levels.
CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_rows_mv TO link_stats_rows AS
SELECT link_id, ts, click_id, tupleElement(r, 1) AS kind, tupleElement(r, 2) AS a, tupleElement(r, 3) AS b,
       tupleElement(r, 4) AS c, toUInt64(tupleElement(r, 5)) AS n, toUInt64(tupleElement(r, 6)) AS bots, visitor_hash
FROM clicks
ARRAY JOIN arrayConcat(
  [('s', '', '', '', toUInt8(clicks.is_bot = 0), clicks.is_bot)],
  if(clicks.is_bot = 0, [
    -- Columns are qualified: an output alias would otherwise shadow a column of clicks here.
    ('d', 'referrer', ifNull(clicks.referrer, ''), '', 1, 0),
    ('d', 'country', toString(clicks.country), '', 1, 0),
    ('d', 'city', clicks.city, if(clicks.city = '', '', toString(clicks.country)), 1, 0),
    ('d', 'device', toString(clicks.device_type), '', 1, 0),
    ('d', 'browser', toString(clicks.browser), '', 1, 0),
    ('d', 'os', toString(clicks.os), '', 1, 0),
    ('v', '', '', '', 0, 0)
  ], [])
) AS r;
