-- link_daily adds up link_hourly's inserted blocks instead of grouping every click a second time.
CREATE MATERIALIZED VIEW IF NOT EXISTS link_daily_from_hourly_mv TO link_daily AS
SELECT account_id, link_id, toDate(hour) AS day, sum(clicks) AS clicks, sum(bot_clicks) AS bot_clicks
FROM link_hourly
GROUP BY account_id, link_id, day;
