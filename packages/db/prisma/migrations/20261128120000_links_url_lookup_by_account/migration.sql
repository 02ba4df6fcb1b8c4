-- "Does this account already have this URL?" (the import's lookUp) through a btree on the account and
-- a 64-bit hash of the URL, instead of the hash index on the URL alone (migration 20261125023845).
--
-- A Postgres hash index keeps every entry of one value in one bucket and appends to that bucket's
-- chain of overflow pages, walking the whole chain on each insert: a create's cost grew with the number
-- of links to its destination, across every account (pgbench, `kurz_create_links` in batches of six,
-- one URL for all: 0.57 ms a batch at first, 0.95 ms after 60,000 rows; 0.51-0.54 ms with this index).
-- A btree keeps duplicates in posting lists and finds its place by descent, and with the account first
-- one account's links to a popular destination are never another's cost. The hash value is only a key:
-- lookups compare the URL itself as well, so a collision costs a row read, never a wrong answer.
-- Not a btree on the URL itself: a 2,048-character URL can exceed a btree entry's size limit.
-- Prisma cannot describe an index on an expression, so schema.prisma does not list this one.
DROP INDEX "links_original_url_hash_idx";

CREATE INDEX "links_account_id_url_hash_idx" ON "links" ("account_id", hashtextextended("original_url", 0));
