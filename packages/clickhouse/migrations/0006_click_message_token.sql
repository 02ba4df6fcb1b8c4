-- Which bus message stored each click, and whose inserts completed (decision 0030).
--
-- An insert into `clicks` feeds eight rollups through materialized views, and ClickHouse commits
-- each table's part on its own: a consumer killed in between leaves a message's clicks in `clicks`
-- without (some of) their rollup rows. The stored-click look-up of decision 0007 would then leave
-- every click of the redelivered message out, and the rollups would never count them. The writer
-- instead inserts such a message again with its deduplication token (migration 0005), which drops
-- the blocks that were stored and writes the missing ones. For that it must know who stored a click:
-- `message_token` is the storing message's token ('' for rows stored before this migration, which
-- count as stored by another message, the behaviour before it); a message's rows sit next to each
-- other in the sorting key (link, day, time-ordered click ids), so the column compresses to little.
ALTER TABLE clicks ADD COLUMN IF NOT EXISTS message_token String DEFAULT '';

-- Messages whose insert returned, i.e. whose rollup blocks are all stored: written by the click
-- writer after each batch's inserts. A redelivered message found here is left out as before; only
-- an interrupted one is inserted again, so the deduplication window (100,000 blocks) is relied on
-- only for an insert interrupted moments before its redelivery, never for an old completed message.
-- Kept 30 days, far longer than any redelivery (Kafka keeps messages 7 days by default); one row
-- per message of up to 200 clicks.
CREATE TABLE IF NOT EXISTS click_messages (
  token String,
  stored_at DateTime('UTC') DEFAULT now()
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(stored_at)
ORDER BY token
TTL stored_at + INTERVAL 30 DAY;
