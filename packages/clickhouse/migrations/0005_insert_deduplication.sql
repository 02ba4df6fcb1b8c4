-- Exactly-once rollups by construction (decision 0028, superseding the race noted in 0007): the
-- click writer inserts each bus message's clicks with an insert_deduplication_token derived from
-- the message's click ids, so two live consumers that both write the same message (a rebalance, a
-- zombie consumer, a reclaimed stream entry) store it once: ClickHouse keeps the tokens of the last
-- blocks of each table and drops a block whose token it has seen. The rollups need the same window,
-- because materialized views are fed even for a source block that was deduplicated; with
-- deduplicate_blocks_in_dependent_materialized_views each view's block gets a token derived from the
-- source token, and is dropped the same way.
-- 100000 blocks: at ~1000 inserts/s, 100 s of overlap between two consumers of one message; a
-- block id is ~50 bytes. Every insert into these tables must carry a token (click-writer.ts does):
-- without one, a block is identified by its content, and two different inserts that roll up to
-- the same rows would be taken for copies.
ALTER TABLE clicks MODIFY SETTING non_replicated_deduplication_window = 100000;
ALTER TABLE link_hourly MODIFY SETTING non_replicated_deduplication_window = 100000;
ALTER TABLE link_dim_hourly MODIFY SETTING non_replicated_deduplication_window = 100000;
ALTER TABLE link_visitors_hourly MODIFY SETTING non_replicated_deduplication_window = 100000;
ALTER TABLE link_daily MODIFY SETTING non_replicated_deduplication_window = 100000;
ALTER TABLE link_dim_daily MODIFY SETTING non_replicated_deduplication_window = 100000;
ALTER TABLE link_dim_total MODIFY SETTING non_replicated_deduplication_window = 100000;
ALTER TABLE link_visitors_daily MODIFY SETTING non_replicated_deduplication_window = 100000;
