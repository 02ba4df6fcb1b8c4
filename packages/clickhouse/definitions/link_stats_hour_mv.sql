-- The rows of an insert summed per UTC hour, into link_stats_hours: link_stats' hour level, day level
-- and link_dim_total are made from these few rows, not from every click's rows three times.
CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_hour_mv TO link_stats_hours AS
SELECT link_id, kind, toDateTime64(toStartOfHour(ts), 3, 'UTC') AS t, a, b, c,
       sum(n) AS n, sum(bots) AS bots, groupUniqArrayIf(visitor_hash, kind = 'v') AS vs
FROM link_stats_rows
GROUP BY link_id, kind, t, a, b, c;
