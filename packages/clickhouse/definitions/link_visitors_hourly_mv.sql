-- Each human click's visitor hash into link_visitors_hourly's per-hour set, from click_feed.
CREATE MATERIALIZED VIEW IF NOT EXISTS link_visitors_hourly_mv TO link_visitors_hourly AS
SELECT link_id, toStartOfHour(ts) AS hour, uniqExactState(visitor_hash) AS visitors
FROM click_feed
WHERE is_bot = 0
GROUP BY link_id, hour;
