-- campaign_members: each campaign's links (issue 13), fed by `campaign.links` events from management's
-- outbox, so campaign analytics need not call management. One row per campaign holding its whole
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
