-- The analytics tables from nothing. Views are not here: each has one definition file under
-- packages/clickhouse/definitions/, which `migrate` applies after the migrations whenever the file
-- changes (packages/clickhouse/README.md). Version 11 because a data directory migrated before this
-- baseline existed recorded versions 1 to 10, the chain it replaced; such a directory is adopted
-- (migrate.ts): this file is recorded as applied without running.
-- How a click reaches these tables, and how they are read: docs/analytics.md.
-- A table that sets a setting states index_granularity = 8192, ClickHouse's default, first: an adopted
-- data directory's tables list it there, and so SHOW CREATE TABLE reads the same on both.

-- clicks: one row per counted redirect, written by the analytics click consumer.
-- Events are delivered at least once, so the same click (click_id, generated at the redirect) can
-- arrive twice. ReplacingMergeTree collapses rows with equal sorting keys when parts merge, so
-- the sorting key must identify a click: (link_id, toDate(ts), click_id). link_id comes first
-- because analytics queries read one link (or a set of links) at a time, the day next so time
-- ranges prune granules, click_id last to make the key unique per click. A redelivery carries the
-- same ts (set once at the redirect), hence the same day and month partition, so the copies meet
-- in one partition and merge. Merges are eventual: queries that need exact counts read with FINAL
-- (or count uniqExact(click_id)). The primary index stops before click_id: random UUIDs do not
-- help pruning and would only grow the index held in memory. Monthly partitions keep merges
-- small and let retention drop whole months.
-- The consumer's duplicate check looks click ids up within a link and day; click ids are UUIDv7,
-- so within a (link, day) range they are sorted by time and a min/max per granule prunes well.
-- `message_token` is the token of the bus message that stored the click ('' for clicks stored
-- before messages were tracked, which count as stored by another message): the click writer
-- inserts an interrupted message again with its deduplication token, which drops the blocks that
-- were stored and writes the missing ones (decision 0049). A message's rows sit next to each other
-- in the sorting key (link, day, time-ordered click ids), so the column compresses to little.
CREATE TABLE IF NOT EXISTS clicks (
  click_id UUID,
  link_id UUID,
  account_id UUID,
  short_code String,
  ts DateTime64(3, 'UTC'),
  referrer Nullable(String),                   -- NULL = direct traffic
  country LowCardinality(String) DEFAULT '',   -- ISO 3166-1 alpha-2, '' = unknown
  city String DEFAULT '',
  device_type LowCardinality(String),
  browser LowCardinality(String),
  os LowCardinality(String),
  is_bot UInt8,
  visitor_hash UInt64,                         -- hash of visitor + daily salt: unique visitors per day
  host String,
  message_token String DEFAULT '',
  INDEX clicks_click_id click_id TYPE minmax GRANULARITY 1
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(ts)
PRIMARY KEY (link_id, toDate(ts))
ORDER BY (link_id, toDate(ts), click_id)
-- Exactly-once rollups by construction (decision 0049): the click writer inserts each bus message's
-- clicks with an insert_deduplication_token derived from the message's click ids, so two live
-- consumers that both write the same message (a rebalance, a zombie consumer, a reclaimed stream
-- entry) store it once: ClickHouse keeps the tokens of the last blocks of each table and drops a
-- block whose token it has seen. The rollups need the same window, because materialized views are fed
-- even for a source block that was deduplicated; with deduplicate_blocks_in_dependent_materialized_views
-- each view's block gets a token derived from the source token, and is dropped the same way.
-- 100000 blocks: at ~1000 inserts/s, 100 s of overlap between two consumers of one message; a block
-- id is ~50 bytes. Every insert into a table with this window must carry a token (click-writer.ts
-- does): without one, a block is identified by its content, and two different inserts that roll up to
-- the same rows would be taken for copies.
SETTINGS index_granularity = 8192, non_replicated_deduplication_window = 100000;

-- Messages whose insert returned, i.e. whose rollup blocks are all stored: written by the click
-- writer after each batch's inserts. A redelivered message found here is left out; only an
-- interrupted one is inserted again, so the deduplication window (100,000 blocks) is relied on only
-- for an insert interrupted moments before its redelivery, never for an old completed message.
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

-- The rollups are fed from click_feed, a Null table that clicks feed (click_feed_mv), instead of from
-- clicks itself, so that a link's rollups can be rebuilt from its raw clicks (by inserting them into
-- click_feed) without storing them in clicks a second time (decision 0049). The click writer does that
-- when embedded chDB died in the middle of an insert's commit: ClickHouse records a block in a table's
-- deduplication log before it commits the block's part, so a process killed in between leaves a record
-- of a block that was never stored, and inserting that block again with its token is dropped as a copy.
CREATE TABLE IF NOT EXISTS click_feed (
  click_id UUID,
  link_id UUID,
  account_id UUID,
  short_code String,
  ts DateTime64(3, 'UTC'),
  referrer Nullable(String),
  country LowCardinality(String),
  city String,
  device_type LowCardinality(String),
  browser LowCardinality(String),
  os LowCardinality(String),
  is_bot UInt8,
  visitor_hash UInt64,
  host String
)
ENGINE = Null;

-- links: the link dimension (short code, title, destination, state) fed by `links` events from
-- management's outbox, so queries such as top links need not call management. Events may be
-- redelivered or arrive out of order; ReplacingMergeTree(version) keeps, per link_id, the row with
-- the highest version whatever order they land in. A deleted link keeps its row with deleted = 1
-- so its past clicks can still be labelled or excluded. Small table: read it with FINAL.
-- Public analytics (GET /api/v1/public/analytics/:short_code) decide from the dimension whether a
-- link shares its analytics and which sections. ClickHouse has no nullable arrays, hence the flag:
-- shares_all_fields = 1 is the API's `analytics_shared_fields: null`. The summary's active_links
-- counts links that are active and not expired (expires_at). The table is ordered by link_id; public
-- lookups go by short code and the summary by account, hence the two bloom filters.
CREATE TABLE IF NOT EXISTS links (
  link_id UUID,
  account_id UUID,
  short_code String,
  title String,
  original_url String,
  is_active UInt8,
  deleted UInt8,
  version UInt64,
  updated_at DateTime64(3, 'UTC'),
  analytics_public UInt8 DEFAULT 0,
  shares_all_fields UInt8 DEFAULT 1,
  analytics_shared_fields Array(LowCardinality(String)),
  expires_at Nullable(DateTime64(3, 'UTC')),
  INDEX links_short_code short_code TYPE bloom_filter GRANULARITY 1,
  INDEX links_account account_id TYPE bloom_filter GRANULARITY 1
)
ENGINE = ReplacingMergeTree(version)
ORDER BY link_id;

-- campaign_members: each campaign's links, fed by `campaign.links` events from management's outbox,
-- so campaign analytics need not call management. One row per campaign holding its whole
-- membership; ReplacingMergeTree(version) keeps the newest whatever order events land in, and a
-- deleted campaign keeps a row with deleted = 1. Small table: read it with FINAL.
CREATE TABLE IF NOT EXISTS campaign_members (
  campaign_id UInt32,
  account_id UUID,
  link_ids Array(UUID),
  short_codes Array(String),
  deleted UInt8,
  version UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY campaign_id;

-- Rollups for the analytics API (decision 0048): counts over one link with a million
-- clicks, or an account with ten million, must answer in well under 100 ms, so queries read
-- pre-aggregated hours and days instead of raw clicks. Materialized views (definitions/) fill them
-- from each insert into click_feed: the hourly tables from the clicks, the daily ones from the hourly
-- inserts (views cascade). They add, so a click inserted twice would be counted twice here even though
-- clicks itself collapses the copy: exactly once comes from the deduplication window above. Rows of a
-- SummingMergeTree are summed on merge, which is eventual: always read with sum(). The hourly and
-- daily per-dimension breakdowns are link_stats' rows; the account's clicks and the
-- visitor sets stay here (uniqExact states are cheaper than link_stats' visitor arrays for the
-- all-time answer and the account summary, which read every day's set).

-- Per link and hour: human and bot clicks. Ordered by account first so the account summary reads
-- one contiguous range; a link query names both ids.
CREATE TABLE IF NOT EXISTS link_hourly (
  account_id UUID,
  link_id UUID,
  hour DateTime('UTC'),
  clicks UInt64,
  bot_clicks UInt64
)
ENGINE = SummingMergeTree((clicks, bot_clicks))
PARTITION BY toYYYYMM(hour)
ORDER BY (account_id, link_id, hour)
SETTINGS index_granularity = 8192, non_replicated_deduplication_window = 100000;

-- The same per day. Every account summary ranks the account's links by all-time clicks and sums its
-- all-time total (services/analytics/src/queries/summary.ts), and the click-totals publisher sums each
-- touched link's clicks: the projection link_totals, grouped by account and link, answers them from
-- one row per link in each of the table's parts (at most about one row per link and month once
-- merged), so their cost does not grow with the account's age. ClickHouse picks it for those
-- aggregates by itself. Part of the table's own parts, so it is exactly as the table is: a
-- deduplicated insert drops its projection with it, and no materialized view or backfill can race an
-- ingest. Deletes of a link's clicks (the links consumer) rebuild the projection of the parts they
-- touch, and merges of SummingMergeTree rebuild it too: both settings say so (the default refuses).
CREATE TABLE IF NOT EXISTS link_daily (
  account_id UUID,
  link_id UUID,
  day Date,
  clicks UInt64,
  bot_clicks UInt64,
  PROJECTION link_totals (
    SELECT account_id, link_id, sum(clicks), sum(bot_clicks) GROUP BY account_id, link_id
  )
)
ENGINE = SummingMergeTree((clicks, bot_clicks))
PARTITION BY toYYYYMM(day)
ORDER BY (account_id, link_id, day)
SETTINGS index_granularity = 8192, non_replicated_deduplication_window = 100000,
  lightweight_mutation_projection_mode = 'rebuild',
  deduplicate_merge_projection_mode = 'rebuild';

-- Per link, dimension and value over all time, human clicks only (bots are excluded from every
-- breakdown), for the default (no period) view: one row per value instead of one per value and day,
-- so a year-old link with a million clicks reads thousands of rows, not hundreds of thousands.
-- `value` is '' for unknown (and for direct traffic in the referrer dimension: the consumer stores an
-- empty Referer as NULL, so '' cannot be a real referrer); `country` is set for cities only.
CREATE TABLE IF NOT EXISTS link_dim_total (
  link_id UUID,
  dim Enum8('referrer' = 1, 'country' = 2, 'city' = 3, 'device' = 4, 'browser' = 5, 'os' = 6),
  value String,
  country LowCardinality(String),
  clicks UInt64
)
ENGINE = SummingMergeTree(clicks)
ORDER BY (link_id, dim, value, country)
SETTINGS index_granularity = 8192, non_replicated_deduplication_window = 100000;

-- Unique visitors per link and hour, and per day. Visitor hashes use a salt that changes every day,
-- so one person is a different hash on each day: hours of one day merge into that day's set, and a
-- period's unique visitors are the sum of its days. A uniqExact state is a set: a duplicate insert
-- does not change it.
CREATE TABLE IF NOT EXISTS link_visitors_hourly (
  link_id UUID,
  hour DateTime('UTC'),
  visitors AggregateFunction(uniqExact, UInt64)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(hour)
ORDER BY (link_id, hour)
SETTINGS index_granularity = 8192, non_replicated_deduplication_window = 100000;

CREATE TABLE IF NOT EXISTS link_visitors_daily (
  link_id UUID,
  day Date,
  visitors AggregateFunction(uniqExact, UInt64)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (link_id, day)
SETTINGS index_granularity = 8192, non_replicated_deduplication_window = 100000;

-- One table answers a link's analytics for any period, whole days or times of day, in one read
-- (decision 0048). Each click is exploded once into the rows of the request's shape (`kind` s: its
-- series row; d: its six breakdown rows, humans only; v: its visitor row, humans only) and stored at
-- three levels side by side: the sums per UTC day (`level` day), per hour (`level` hour), and the
-- click's own rows (`level` click, keyed by its click id). A period reads its whole days, the whole
-- hours of its partial days and the clicks of its partial hours as three key ranges of this one
-- table, so a range with times of day costs about what the same days do.
-- Click rows are kept 35 days (TTL): they are ~8 rows a click, three times the raw table's size if
-- kept forever; a partial hour older than 30 days is read from raw clicks instead (link-stats.ts),
-- so the TTL's lag and a clock skew of up to 5 days never leave a span without its rows.
-- Visitors are arrays of the day-salted visitor hashes, unioned on merge and counted with
-- uniqExactArray: reading a uniqExact state builds a hash set per row read, which cost more than
-- every other part of such a request (docs/benchmarks.md, analytics).
-- Exactly once as the other rollups: the click writer's insert token is derived for every dependent
-- view, and this table keeps the same deduplication window. A copy of a click is never summed at the
-- click level either: its rows share their key with the original's.
CREATE TABLE IF NOT EXISTS link_stats (
  link_id UUID,
  level Enum8('day' = 0, 'hour' = 1, 'click' = 2),
  kind Enum8('s' = 1, 'd' = 2, 'v' = 3),
  t DateTime64(3, 'UTC'),
  click_id UUID,
  -- d: the dimension; s, v: ''.
  a LowCardinality(String),
  -- d: the value ('' when unknown).
  b String,
  -- d of a city: its country; else ''.
  c LowCardinality(String),
  n SimpleAggregateFunction(sum, UInt64),
  bots SimpleAggregateFunction(sum, UInt64),
  vs SimpleAggregateFunction(groupUniqArrayArray, Array(UInt64))
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(t)
ORDER BY (link_id, level, kind, t, click_id, a, b, c)
TTL toDateTime(t) + INTERVAL 35 DAY DELETE WHERE level = 'click'
-- A request reads up to nine small key ranges (three levels, three kinds); finer granules keep each
-- range from reading thousands of rows it does not need.
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 100000;

-- Each click's rows, exploded once for the three levels' views; stores nothing itself.
CREATE TABLE IF NOT EXISTS link_stats_rows (
  link_id UUID,
  ts DateTime64(3, 'UTC'),
  click_id UUID,
  kind Enum8('s' = 1, 'd' = 2, 'v' = 3),
  a String,
  b String,
  c String,
  n UInt64,
  bots UInt64,
  visitor_hash UInt64
)
ENGINE = Null;
