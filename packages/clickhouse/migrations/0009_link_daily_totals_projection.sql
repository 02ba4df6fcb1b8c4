-- Issue 15 ("costs that do not grow with the account"): every account summary ranks the account's
-- links by all-time clicks and sums its all-time total (services/analytics/src/queries/summary.ts),
-- and the click-totals publisher sums each touched link's clicks; all three read link_daily, one row
-- per link and day with clicks, so their cost grew with the account's age as well as its links.
-- A projection of link_daily grouped by account and link answers them from one row per link in each
-- of the table's parts (monthly partitions: at most about one row per link and month once merged).
-- ClickHouse picks it for those aggregates by itself; the queries are unchanged.
-- Part of link_daily's own parts, so it is exactly as the table is: a deduplicated insert
-- (decision 0028) drops its projection with it, and no materialized view or backfill can race an
-- ingest. Deletes of a link's clicks (the links consumer) rebuild the projection of the parts they
-- touch, and merges of SummingMergeTree rebuild it too: both settings say so (the default refuses).
ALTER TABLE link_daily MODIFY SETTING
  lightweight_mutation_projection_mode = 'rebuild',
  deduplicate_merge_projection_mode = 'rebuild';
ALTER TABLE link_daily ADD PROJECTION IF NOT EXISTS link_totals (
  SELECT account_id, link_id, sum(clicks), sum(bot_clicks) GROUP BY account_id, link_id
);
-- Builds it for the parts written before (a mutation; a part written meanwhile has it already).
ALTER TABLE link_daily MATERIALIZE PROJECTION link_totals;
