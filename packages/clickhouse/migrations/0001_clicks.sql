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
  host String
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(ts)
PRIMARY KEY (link_id, toDate(ts))
ORDER BY (link_id, toDate(ts), click_id);

-- links: the link dimension (short code, title, destination, state) fed by `links` events from
-- management's outbox, so queries such as top links need not call management. Events may be
-- redelivered or arrive out of order; ReplacingMergeTree(version) keeps, per link_id, the row with
-- the highest version whatever order they land in. A deleted link keeps its row with deleted = 1
-- so its past clicks can still be labelled or excluded. Small table: read it with FINAL.
CREATE TABLE IF NOT EXISTS links (
  link_id UUID,
  account_id UUID,
  short_code String,
  title String,
  original_url String,
  is_active UInt8,
  deleted UInt8,
  version UInt64,
  updated_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(version)
ORDER BY link_id;
