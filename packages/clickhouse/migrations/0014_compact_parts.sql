-- Merged parts of `clicks` and `link_stats`, the two tables whose merges rewrite most rows, stay in the
-- compact format (one file for every column) up to 1 GiB uncompressed instead of 10 MiB: merging into
-- a compact part costs ClickHouse's merge threads less CPU than into a wide one, and background merges
-- are a large share of what a counted click costs on a small host (docs/analytics.md, "What keeps the
-- insert cheap"). What the tables hold is unchanged; only how parts written from now on are laid out.
ALTER TABLE clicks MODIFY SETTING min_bytes_for_wide_part = 1073741824;
ALTER TABLE link_stats MODIFY SETTING min_bytes_for_wide_part = 1073741824;
