-- link_visitors_daily merges link_visitors_hourly's inserted sets per UTC day.
CREATE MATERIALIZED VIEW IF NOT EXISTS link_visitors_daily_from_hourly_mv TO link_visitors_daily AS
SELECT link_id, toDate(hour) AS day, uniqExactMergeState(visitors) AS visitors
FROM link_visitors_hourly
GROUP BY link_id, day;
