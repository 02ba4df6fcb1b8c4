-- link_stats' hour level: the rows of an insert summed per UTC hour.
CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_hour_mv TO link_stats AS
SELECT link_id, 'hour' AS level, kind, toDateTime64(toStartOfHour(ts), 3, 'UTC') AS t,
       toUUID('00000000-0000-0000-0000-000000000000') AS click_id, a, b, c,
       sum(n) AS n, sum(bots) AS bots, groupUniqArrayIf(visitor_hash, kind = 'v') AS vs
FROM link_stats_rows
GROUP BY link_id, kind, t, a, b, c;
