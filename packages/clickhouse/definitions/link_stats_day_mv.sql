-- link_stats' day level: an insert's hour rows (link_stats_hours) summed per UTC day.
CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_day_mv TO link_stats AS
SELECT link_id, 'day' AS level, kind, toDateTime64(toStartOfDay(link_stats_hours.t), 3, 'UTC') AS t,
       toUUID('00000000-0000-0000-0000-000000000000') AS click_id, a, b, c,
       sum(n) AS n, sum(bots) AS bots, groupUniqArrayArray(vs) AS vs
FROM link_stats_hours
GROUP BY link_id, kind, t, a, b, c;
