-- Background merges of `link_stats` wait for about ten parts of like size before merging them, not
-- five (ClickHouse's Simple merge selector, `merge_selector_base`): each row is rewritten fewer times
-- on its way into a big part. Its click level, eight rows a human click, is most of what merges
-- rewrite, so most of what a counted click costs in merges (docs/analytics.md, "What keeps the insert
-- cheap"). `clicks` keeps the default: its merges cost little, and a period's partial hours in the
-- account summary are read from it, where fewer parts keep the read cheap.
ALTER TABLE link_stats MODIFY SETTING merge_selector_base = 10;
