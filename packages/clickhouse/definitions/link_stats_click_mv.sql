-- link_stats' click level: a click's own rows, keyed by its click id (kept 35 days, link_stats' TTL).
CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_click_mv TO link_stats AS
SELECT link_id, 'click' AS level, kind, ts AS t, click_id, a, b, c, n, bots,
       if(kind = 'v', [visitor_hash], emptyArrayUInt64()) AS vs
FROM link_stats_rows;
