-- Each human click's breakdown values into link_dim_total, the all-time breakdown (decision 0041): the
-- d rows of an insert's hours (link_stats_hours), which link_stats_rows_mv exploded from the clicks
-- once: six dimensions, and the destination when it is not the default (whose count is the rest of
-- the link's clicks: migrations/0012_click_destination.sql). Bots have no d rows.
CREATE MATERIALIZED VIEW IF NOT EXISTS link_dim_total_from_clicks_mv TO link_dim_total AS
SELECT link_id, a AS dim,
       b AS value, c AS country, sum(n) AS clicks
FROM link_stats_hours
WHERE kind = 'd'
GROUP BY link_id, dim, value, country;
