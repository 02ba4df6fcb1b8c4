-- Each click's account and link hour into link_hourly (humans and bots apart), from click_feed.
CREATE MATERIALIZED VIEW IF NOT EXISTS link_hourly_mv TO link_hourly AS
SELECT
  account_id,
  link_id,
  toStartOfHour(ts) AS hour,
  countIf(is_bot = 0) AS clicks,
  countIf(is_bot = 1) AS bot_clicks
FROM click_feed
GROUP BY account_id, link_id, hour;
