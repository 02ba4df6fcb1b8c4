-- Which part of a link sent each click (docs/analytics.md, "Destinations"): `default` (the link's
-- original_url), `rule:N`, `split:N`, `ios`, `android` or `expired`. Clicks stored before this
-- column existed were all sent to the default, which the column's default says. LowCardinality: a
-- link has a few dozen values at most.
ALTER TABLE clicks ADD COLUMN IF NOT EXISTS destination LowCardinality(String) DEFAULT 'default' AFTER host;

-- The views read clicks through click_feed (decision 0049), so it carries the column too.
ALTER TABLE click_feed ADD COLUMN IF NOT EXISTS destination LowCardinality(String) DEFAULT 'default';

-- The all-time breakdown gains the dimension. Its rows are kept only for clicks not sent to the
-- default: a default row would cost every click of every plain link a row here and in link_stats,
-- and would need a backfill of every stored click, while the default's count is the link's human
-- clicks less the others' (services/analytics/src/queries/link-stats.ts). Adding an Enum value
-- changes only metadata, key column or not.
ALTER TABLE link_dim_total MODIFY COLUMN dim
  Enum8('referrer' = 1, 'country' = 2, 'city' = 3, 'device' = 4, 'browser' = 5, 'os' = 6, 'destination' = 7);
