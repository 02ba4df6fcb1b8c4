-- Each human click's six breakdown values into link_dim_total, the all-time breakdown (decision 0041),
-- from click_feed, and its destination when that is not the default (whose count is the rest of the
-- link's clicks: migrations/0012_click_destination.sql).
CREATE MATERIALIZED VIEW IF NOT EXISTS link_dim_total_from_clicks_mv TO link_dim_total AS
SELECT
  link_id,
  tupleElement(d, 1) AS dim,
  tupleElement(d, 2) AS value,
  tupleElement(d, 3) AS country,
  count() AS clicks
FROM click_feed
ARRAY JOIN arrayConcat([
  ('referrer', ifNull(click_feed.referrer, ''), ''),
  ('country', toString(click_feed.country), ''),
  ('city', click_feed.city, if(click_feed.city = '', '', toString(click_feed.country))),
  ('device', toString(click_feed.device_type), ''),
  ('browser', toString(click_feed.browser), ''),
  ('os', toString(click_feed.os), '')
], if(click_feed.destination = 'default', [], [('destination', toString(click_feed.destination), '')])) AS d
WHERE click_feed.is_bot = 0
GROUP BY link_id, dim, value, country;
