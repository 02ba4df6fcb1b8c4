-- link_stats' hour rows of one insert, before they are stored: link_stats_hour_mv sums each insert's
-- exploded click rows (link_stats_rows) per link, kind, hour and value into this Null table once, and
-- three views read those few rows instead of every click's rows again: the hour level and the day
-- level of link_stats, and the all-time breakdown link_dim_total (docs/analytics.md). Stores nothing.
CREATE TABLE IF NOT EXISTS link_stats_hours (
  link_id UUID,
  kind Enum8('s' = 1, 'd' = 2, 'v' = 3),
  t DateTime64(3, 'UTC'),
  a String,
  b String,
  c String,
  n UInt64,
  bots UInt64,
  vs Array(UInt64)
)
ENGINE = Null;
