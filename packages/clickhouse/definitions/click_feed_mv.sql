-- Every insert into clicks feeds click_feed, the Null table the rollups read (decision 0049), so a
-- link's rollups can be rebuilt by inserting its raw clicks into click_feed alone.
CREATE MATERIALIZED VIEW IF NOT EXISTS click_feed_mv TO click_feed AS
SELECT click_id, link_id, account_id, short_code, ts, referrer, country, city, device_type, browser, os,
       is_bot, visitor_hash, host, destination
FROM clicks;
