-- Issue 18, decision 0041: a link's breakdowns and visitors live in link_stats alone (0007).
-- The per-link dimension and visitor rollups of 0002/0003 held the same rows by hour, by day and over
-- all time, and every click paid for both: five views, against ingest's target. Their readers (the
-- all-time answer, the account summary's visitors, the analytics export by dimension) read link_stats
-- now; its new 'all' level is the all-time breakdown that link_dim_total was.
-- Kept: link_hourly and link_daily, the account's clicks keyed by account first, for the summary, the
-- exports without a dimension and the click totals.
-- Stop the analytics consumers while this runs (docs/analytics.md): the all-time rows are filled from
-- the day rows before the view that adds to them exists.

DROP VIEW IF EXISTS link_dim_hourly_mv;
DROP VIEW IF EXISTS link_dim_daily_from_hourly_mv;
DROP VIEW IF EXISTS link_dim_total_mv;
DROP VIEW IF EXISTS link_visitors_hourly_mv;
DROP VIEW IF EXISTS link_visitors_daily_from_hourly_mv;
DROP TABLE IF EXISTS link_dim_hourly;
DROP TABLE IF EXISTS link_dim_daily;
DROP TABLE IF EXISTS link_dim_total;
DROP TABLE IF EXISTS link_visitors_hourly;
DROP TABLE IF EXISTS link_visitors_daily;

-- (Filters name their table: ClickHouse would read a bare `kind` as the SELECT's constant alias.)
-- The hour and day views are redefined under their names (a rerun of 0007 then finds them and
-- rebuilds every level through them). Visitor sets are summed by views of their own: grouping every
-- row with a groupUniqArray state paid for that state in every series and breakdown group, where only
-- the one visitor row per link and hour (or day) has hashes. Same rows as before.
DROP VIEW IF EXISTS link_stats_hour_mv;
DROP VIEW IF EXISTS link_stats_day_mv;
DROP VIEW IF EXISTS link_stats_hour_visitors_mv;
DROP VIEW IF EXISTS link_stats_day_visitors_mv;
DROP VIEW IF EXISTS link_stats_all_mv;

ALTER TABLE link_stats MODIFY COLUMN level Enum8('day' = 0, 'hour' = 1, 'click' = 2, 'all' = 3);

-- The all-time breakdown of every link, from its day rows; a rerun replaces, not adds to, these rows.
DELETE FROM link_stats WHERE level = 'all';
INSERT INTO link_stats
SELECT link_id, 'all' AS level, 'd' AS kind, toDateTime64(0, 3, 'UTC') AS t,
       toUUID('00000000-0000-0000-0000-000000000000') AS click_id, a, b, c,
       sum(n) AS n, toUInt64(0) AS bots, emptyArrayUInt64() AS vs
FROM link_stats
WHERE link_stats.level = 'day' AND link_stats.kind = 'd'
GROUP BY link_id, a, b, c
SETTINGS insert_deduplicate = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_hour_mv TO link_stats AS
SELECT link_id, 'hour' AS level, kind, toDateTime64(toStartOfHour(ts), 3, 'UTC') AS t,
       toUUID('00000000-0000-0000-0000-000000000000') AS click_id, a, b, c,
       sum(n) AS n, sum(bots) AS bots, emptyArrayUInt64() AS vs
FROM link_stats_rows
WHERE kind != 'v'
GROUP BY link_id, kind, t, a, b, c;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_day_mv TO link_stats AS
SELECT link_id, 'day' AS level, kind, toDateTime64(toStartOfDay(ts), 3, 'UTC') AS t,
       toUUID('00000000-0000-0000-0000-000000000000') AS click_id, a, b, c,
       sum(n) AS n, sum(bots) AS bots, emptyArrayUInt64() AS vs
FROM link_stats_rows
WHERE kind != 'v'
GROUP BY link_id, kind, t, a, b, c;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_hour_visitors_mv TO link_stats AS
SELECT link_id, 'hour' AS level, 'v' AS kind, toDateTime64(toStartOfHour(ts), 3, 'UTC') AS t,
       toUUID('00000000-0000-0000-0000-000000000000') AS click_id, '' AS a, '' AS b, '' AS c,
       toUInt64(0) AS n, toUInt64(0) AS bots, groupUniqArray(visitor_hash) AS vs
FROM link_stats_rows
WHERE link_stats_rows.kind = 'v'
GROUP BY link_id, t;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_day_visitors_mv TO link_stats AS
SELECT link_id, 'day' AS level, 'v' AS kind, toDateTime64(toStartOfDay(ts), 3, 'UTC') AS t,
       toUUID('00000000-0000-0000-0000-000000000000') AS click_id, '' AS a, '' AS b, '' AS c,
       toUInt64(0) AS n, toUInt64(0) AS bots, groupUniqArray(visitor_hash) AS vs
FROM link_stats_rows
WHERE link_stats_rows.kind = 'v'
GROUP BY link_id, t;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_all_mv TO link_stats AS
SELECT link_id, 'all' AS level, 'd' AS kind, toDateTime64(0, 3, 'UTC') AS t,
       toUUID('00000000-0000-0000-0000-000000000000') AS click_id, a, b, c,
       sum(n) AS n, toUInt64(0) AS bots, emptyArrayUInt64() AS vs
FROM link_stats_rows
WHERE link_stats_rows.kind = 'd'
GROUP BY link_id, a, b, c;
