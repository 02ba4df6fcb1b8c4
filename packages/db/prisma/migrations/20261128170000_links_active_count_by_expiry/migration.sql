-- The account's active links (the analytics summary's `active_links`, the dashboard's overview) are
-- counted as its stored link count less the links that do not answer: those switched off, and those
-- switched on whose expiry has passed. Counting the active ones directly read every active link of the
-- account (12 ms at 100,000 links, 90 ms at 1,000,000, on every summary); this way a count reads only
-- the links that are off (links_account_id_is_active_created_at_id_idx) and the expired ones, through
-- this index. Partial: a link without an expiry, or switched off, is not in it, so most creates add no
-- entry. Prisma cannot describe a partial index without a preview feature, so schema.prisma does not
-- list this one (it leaves indexes it cannot describe alone).
CREATE INDEX "links_account_id_expires_at_active_idx" ON "links" ("account_id", "expires_at")
  WHERE "is_active" AND "expires_at" IS NOT NULL;
