-- link_stats' hour level: an insert's rows summed per UTC hour (link_stats_hour_mv), stored as they are.
CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_hour_level_mv TO link_stats AS
SELECT link_id, 'hour' AS level, kind, t, toUUID('00000000-0000-0000-0000-000000000000') AS click_id,
       a, b, c, n, bots, vs
FROM link_stats_hours;
