-- "Does this account already have this URL?" is asked by every import batch for its alias-less rows
-- (services/management/src/imports/import-batch.ts, lookUp). Only the trigram GIN covered original_url,
-- and it answers equality by reading every link of the account or its pending list: EXPLAIN before and
-- after at 100,000 links in docs/benchmarks.md ("import and export"). A hash index answers `=` alone and
-- holds a 4-byte hash per link, so a 2,048-character URL cannot exceed an index entry's size limit.
-- CreateIndex
CREATE INDEX "links_original_url_hash_idx" ON "links" USING HASH ("original_url");
