-- Trigram operator classes for the search indexes below (trusted extension since PostgreSQL 13).
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- DropIndex
DROP INDEX "links_account_id_created_at_idx";

-- DropIndex
DROP INDEX "links_account_id_is_active_idx";

-- CreateIndex
CREATE INDEX "links_account_id_created_at_id_idx" ON "links"("account_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "links_account_id_is_active_created_at_id_idx" ON "links"("account_id", "is_active", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "links_original_url_trgm_idx" ON "links" USING GIN ("original_url" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "links_short_code_trgm_idx" ON "links" USING GIN ("short_code" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "links_title_trgm_idx" ON "links" USING GIN ("title" gin_trgm_ops);

