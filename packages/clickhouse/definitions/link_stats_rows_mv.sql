-- Explodes each click into the rows of link_stats' request shape (decision 0040): `kind` s its series
-- row; d its six breakdown rows and v its visitor row, humans only, and a d row of its destination
-- when that is not the default (the default's count is the rest of the human clicks:
-- migrations/0012_click_destination.sql). link_stats_click_mv, link_stats_hour_mv and
-- link_stats_day_mv store them at their three levels.
CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_rows_mv TO link_stats_rows AS
SELECT link_id, ts, click_id, tupleElement(r, 1) AS kind, tupleElement(r, 2) AS a, tupleElement(r, 3) AS b,
       tupleElement(r, 4) AS c, toUInt64(tupleElement(r, 5)) AS n, toUInt64(tupleElement(r, 6)) AS bots, visitor_hash
FROM click_feed
ARRAY JOIN arrayConcat(
  [('s', '', '', '', toUInt8(click_feed.is_bot = 0), click_feed.is_bot)],
  if(click_feed.is_bot = 0, [
    -- Columns are qualified: an output alias would otherwise shadow a column of click_feed here.
    ('d', 'referrer', ifNull(click_feed.referrer, ''), '', 1, 0),
    ('d', 'country', toString(click_feed.country), '', 1, 0),
    ('d', 'city', click_feed.city, if(click_feed.city = '', '', toString(click_feed.country)), 1, 0),
    ('d', 'device', toString(click_feed.device_type), '', 1, 0),
    ('d', 'browser', toString(click_feed.browser), '', 1, 0),
    ('d', 'os', toString(click_feed.os), '', 1, 0),
    ('v', '', '', '', 0, 0)
  ], []),
  if(click_feed.is_bot = 0 AND click_feed.destination != 'default',
    [('d', 'destination', toString(click_feed.destination), '', 1, 0)], [])
) AS r;
