-- The schema from nothing: tables, indexes, constraints, extensions. Functions and triggers are not
-- here: each has one definition file under packages/db/sql/, which migrateDatabase applies after the
-- migrations whenever the file changes (packages/db/README.md). A database migrated before this
-- baseline existed has it recorded as applied instead of run (migrate-database.ts, "adoption").

-- Trigram operator classes for the links search indexes below (trusted extension since PostgreSQL 13).
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- Branded domains', overlays' and rotators' Redis records carry a version drawn from one sequence
-- (decision 0052). The domains' and overlays' column defaults call kurz_new_record_version(), so the
-- function must exist before those tables; its definition is sql/functions/kurz_new_record_version.sql,
-- applied after the migrations. This placeholder refuses to run until then.
CREATE SEQUENCE "record_versions";
CREATE FUNCTION kurz_new_record_version() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RAISE EXCEPTION 'kurz_new_record_version: apply packages/db/sql (migrateDatabase does)';
END
$$;

-- CreateTable
CREATE TABLE "accounts" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "password_hash" TEXT,
    "link_limit" INTEGER NOT NULL DEFAULT 500,
    "default_expiry_hours" INTEGER,
    "total_clicks" BIGINT NOT NULL DEFAULT 0,
    "legacy_id" SERIAL NOT NULL,
    "username" TEXT,
    "plan" TEXT NOT NULL DEFAULT 'free',
    "plan_expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "rate_limit_per_hour" INTEGER,
    "rate_limit_per_minute" INTEGER,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "key_prefix" TEXT NOT NULL,
    "rate_limit_per_minute" INTEGER NOT NULL DEFAULT 60,
    "rate_limit_per_hour" INTEGER NOT NULL DEFAULT 1000,
    "last_used_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "links" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "short_code" TEXT NOT NULL,
    "original_url" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "password_hash" TEXT,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "expires_at" TIMESTAMPTZ(3),
    "clicks_count" BIGINT NOT NULL DEFAULT 0,
    "analytics_public" BOOLEAN NOT NULL DEFAULT false,
    "analytics_shared_fields" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "domain_id" INTEGER,
    "frame_checked_at" TIMESTAMPTZ(3),
    "frameable" BOOLEAN,
    "overlay_id" INTEGER,
    "version" BIGINT NOT NULL DEFAULT 1,

    CONSTRAINT "links_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbox_events" (
    "id" BIGSERIAL NOT NULL,
    "topic" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "headers" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbox_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "domains" (
    "id" SERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "host" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "redirect_root" TEXT,
    "redirect_404" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_checked_at" TIMESTAMPTZ(3),
    "status" TEXT NOT NULL DEFAULT 'pending',
    "verification_token" TEXT NOT NULL DEFAULT replace((gen_random_uuid())::text, '-'::text, ''::text),
    "verified_at" TIMESTAMPTZ(3),
    "version" BIGINT NOT NULL DEFAULT kurz_new_record_version(),

    CONSTRAINT "domains_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "overlays" (
    "id" SERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "bg_color" TEXT NOT NULL DEFAULT '#FFFFFF',
    "button_color" TEXT NOT NULL DEFAULT '#2563EB',
    "button_label" TEXT,
    "button_url" TEXT,
    "fields" JSONB NOT NULL DEFAULT '[]',
    "position" TEXT NOT NULL DEFAULT 'bottom',
    "text" TEXT NOT NULL DEFAULT '',
    "text_color" TEXT NOT NULL DEFAULT '#111111',
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "version" BIGINT NOT NULL DEFAULT kurz_new_record_version(),

    CONSTRAINT "overlays_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "campaigns" (
    "id" SERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "slug" TEXT,
    "public" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "public_id" TEXT NOT NULL DEFAULT replace((gen_random_uuid())::text, '-'::text, ''::text),

    CONSTRAINT "campaigns_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "campaign_links" (
    "campaign_id" INTEGER NOT NULL,
    "link_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "weight" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "campaign_links_pkey" PRIMARY KEY ("campaign_id","link_id")
);

-- CreateTable
CREATE TABLE "channels" (
    "id" SERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "color" TEXT NOT NULL DEFAULT '#000000',
    "starred" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "channels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "channel_links" (
    "channel_id" INTEGER NOT NULL,
    "link_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "channel_links_pkey" PRIMARY KEY ("channel_id","link_id")
);

-- CreateTable
CREATE TABLE "retired_codes" (
    "short_code" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "link_id" UUID NOT NULL,
    "retired_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "retired_codes_pkey" PRIMARY KEY ("short_code")
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "token_hash" TEXT NOT NULL,
    "csrf_token" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "renewed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "confirmed_at" TIMESTAMPTZ(3),

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "description" TEXT,
    "events" TEXT[],
    "secret_ciphertext" TEXT NOT NULL,
    "secret_prefix" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabled_reason" TEXT,
    "disabled_at" TIMESTAMPTZ(3),
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "failing_since" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "event_id" TEXT NOT NULL,
    "event_type" TEXT NOT NULL,
    "order_key" TEXT,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "give_up_at" TIMESTAMPTZ(3) NOT NULL,
    "response_code" INTEGER,
    "error" TEXT,
    "latency_ms" INTEGER,
    "last_attempt_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_clicks" (
    "endpoint_id" UUID NOT NULL,
    "click_id" UUID NOT NULL,
    "payload" JSONB NOT NULL,
    "ts" TIMESTAMPTZ(3) NOT NULL,
    "delivery_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_clicks_pkey" PRIMARY KEY ("endpoint_id","click_id")
);

-- CreateTable
CREATE TABLE "overlay_submissions" (
    "id" SERIAL NOT NULL,
    "overlay_id" INTEGER NOT NULL,
    "account_id" UUID NOT NULL,
    "link_id" UUID NOT NULL,
    "name" TEXT,
    "email" TEXT,
    "phone" TEXT,
    "message" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "overlay_submissions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "import_jobs" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "format" TEXT NOT NULL,
    "filename" TEXT,
    "fetch_titles" BOOLEAN NOT NULL DEFAULT false,
    "content" BYTEA,
    "content_sha256" TEXT NOT NULL,
    "total" INTEGER NOT NULL DEFAULT 0,
    "processed" INTEGER NOT NULL DEFAULT 0,
    "created" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    "passwords_hashed" INTEGER NOT NULL DEFAULT 0,
    "title_budget" TEXT,
    "needs_attention" INTEGER NOT NULL DEFAULT 0,
    "domain_id" INTEGER,
    "rename_reserved" TEXT,

    CONSTRAINT "import_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "import_row_errors" (
    "job_id" UUID NOT NULL,
    "row" INTEGER NOT NULL,
    "alias" TEXT,
    "url" TEXT,
    "error" TEXT NOT NULL,

    CONSTRAINT "import_row_errors_pkey" PRIMARY KEY ("job_id","row")
);

-- CreateTable
CREATE TABLE "link_quota" (
    "account_id" UUID NOT NULL,
    "shard" INTEGER NOT NULL,
    "used" INTEGER NOT NULL DEFAULT 0,
    "lease" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "link_quota_pkey" PRIMARY KEY ("account_id","shard")
);

-- CreateTable
CREATE TABLE "import_row_attention" (
    "job_id" UUID NOT NULL,
    "row" INTEGER NOT NULL,
    "link_id" UUID NOT NULL,
    "alias" TEXT,
    "url" TEXT NOT NULL,
    "reason" TEXT NOT NULL,

    CONSTRAINT "import_row_attention_pkey" PRIMARY KEY ("job_id","row")
);

-- CreateTable
CREATE TABLE "import_row_renames" (
    "job_id" UUID NOT NULL,
    "row" INTEGER NOT NULL,
    "code" TEXT NOT NULL,
    "short_code" TEXT NOT NULL,

    CONSTRAINT "import_row_renames_pkey" PRIMARY KEY ("job_id","row")
);

-- Hand-written (Prisma does not model CHECK constraints): emails are stored lower-case so the unique
-- index is case-insensitive in effect; writers must normalise.
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_email_lower_case" CHECK ("email" = lower("email"));

-- Hand-written: a shard of an account's link count never counts past its lease (decision 0037; the
-- invariants are kept by the functions in sql/functions/, the table's only writers).
ALTER TABLE "link_quota" ADD CONSTRAINT "link_quota_used_within_lease" CHECK ("used" <= "lease");

-- CreateIndex
CREATE UNIQUE INDEX "accounts_email_key" ON "accounts"("email");

-- CreateIndex
CREATE UNIQUE INDEX "accounts_legacy_id_key" ON "accounts"("legacy_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_account_id_idx" ON "api_keys"("account_id");

-- CreateIndex
CREATE UNIQUE INDEX "sessions_token_hash_key" ON "sessions"("token_hash");

-- CreateIndex
CREATE INDEX "sessions_account_id_idx" ON "sessions"("account_id");

-- CreateIndex
CREATE INDEX "sessions_expires_at_idx" ON "sessions"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "links_short_code_key" ON "links"("short_code");

-- CreateIndex
CREATE INDEX "links_account_id_created_at_id_idx" ON "links"("account_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "links_account_id_is_active_created_at_id_idx" ON "links"("account_id", "is_active", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "links_overlay_id_idx" ON "links"("overlay_id");

-- CreateIndex
CREATE INDEX "links_domain_id_idx" ON "links"("domain_id");

-- CreateIndex
CREATE INDEX "links_original_url_trgm_idx" ON "links" USING GIN ("original_url" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "links_short_code_trgm_idx" ON "links" USING GIN ("short_code" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "links_title_trgm_idx" ON "links" USING GIN ("title" gin_trgm_ops);

-- CreateIndex
CREATE UNIQUE INDEX "domains_host_key" ON "domains"("host");

-- CreateIndex
CREATE INDEX "domains_account_id_id_idx" ON "domains"("account_id", "id");

-- CreateIndex
CREATE INDEX "retired_codes_account_id_retired_at_idx" ON "retired_codes"("account_id", "retired_at");

-- CreateIndex
CREATE INDEX "retired_codes_retired_at_idx" ON "retired_codes"("retired_at");

-- CreateIndex
CREATE INDEX "overlays_account_id_id_idx" ON "overlays"("account_id", "id");

-- CreateIndex
CREATE INDEX "overlay_submissions_overlay_id_id_idx" ON "overlay_submissions"("overlay_id", "id");

-- CreateIndex
CREATE INDEX "overlay_submissions_account_id_id_idx" ON "overlay_submissions"("account_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "campaigns_slug_key" ON "campaigns"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "campaigns_public_id_key" ON "campaigns"("public_id");

-- CreateIndex
CREATE INDEX "campaigns_account_id_id_idx" ON "campaigns"("account_id", "id");

-- CreateIndex
CREATE INDEX "campaign_links_link_id_idx" ON "campaign_links"("link_id");

-- CreateIndex
CREATE UNIQUE INDEX "campaign_links_campaign_id_position_key" ON "campaign_links"("campaign_id", "position");

-- CreateIndex
CREATE INDEX "channels_account_id_id_idx" ON "channels"("account_id", "id");

-- CreateIndex
CREATE INDEX "channel_links_link_id_idx" ON "channel_links"("link_id");

-- CreateIndex
CREATE INDEX "import_jobs_account_id_created_at_idx" ON "import_jobs"("account_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "import_jobs_account_id_content_sha256_idx" ON "import_jobs"("account_id", "content_sha256");

-- CreateIndex
CREATE INDEX "import_jobs_status_lease_until_idx" ON "import_jobs"("status", "lease_until");

-- CreateIndex
CREATE INDEX "import_jobs_domain_id_idx" ON "import_jobs"("domain_id");

-- CreateIndex
CREATE INDEX "webhook_endpoints_account_id_created_at_idx" ON "webhook_endpoints"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_order_key_seq_idx" ON "webhook_deliveries"("endpoint_id", "order_key", "seq");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_created_at_idx" ON "webhook_deliveries"("endpoint_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_endpoint_id_event_id_key" ON "webhook_deliveries"("endpoint_id", "event_id");

-- CreateIndex
CREATE INDEX "webhook_clicks_endpoint_id_delivery_id_created_at_idx" ON "webhook_clicks"("endpoint_id", "delivery_id", "created_at");

-- Hand-written (Prisma cannot describe an index on an expression, so schema.prisma does not list it):
-- "does this account already have this URL?" (the import's lookUp) through a btree on the account and
-- a 64-bit hash of the URL. A Postgres hash index keeps every entry of one value in one bucket and
-- appends to that bucket's chain of overflow pages, walking the whole chain on each insert: a create's
-- cost grew with the number of links to its destination, across every account (pgbench,
-- `kurz_create_links` in batches of six, one URL for all: 0.57 ms a batch at first, 0.95 ms after
-- 60,000 rows; 0.51-0.54 ms with this index). A btree keeps duplicates in posting lists and finds its
-- place by descent, and with the account first one account's links to a popular destination are never
-- another's cost. The hash value is only a key: lookups compare the URL itself as well, so a collision
-- costs a row read, never a wrong answer. Not a btree on the URL itself: a 2,048-character URL can
-- exceed a btree entry's size limit.
CREATE INDEX "links_account_id_url_hash_idx" ON "links" ("account_id", hashtextextended("original_url", 0));

-- Hand-written (Prisma cannot describe a partial index without a preview feature, so schema.prisma
-- does not list it): the account's active links (the analytics summary's `active_links`, the
-- dashboard's overview) are counted as its stored link count less the links that do not answer: those
-- switched off, and those switched on whose expiry has passed. Counting the active ones directly read
-- every active link of the account (12 ms at 100,000 links, 90 ms at 1,000,000, on every summary); this
-- way a count reads only the links that are off (links_account_id_is_active_created_at_id_idx) and the
-- expired ones, through this index. Partial: a link without an expiry, or switched off, is not in it,
-- so most creates add no entry.
CREATE INDEX "links_account_id_expires_at_active_idx" ON "links" ("account_id", "expires_at")
  WHERE "is_active" AND "expires_at" IS NOT NULL;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "link_quota" ADD CONSTRAINT "link_quota_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "links" ADD CONSTRAINT "links_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "links" ADD CONSTRAINT "links_overlay_id_fkey" FOREIGN KEY ("overlay_id") REFERENCES "overlays"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "links" ADD CONSTRAINT "links_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE NO ACTION ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "domains" ADD CONSTRAINT "domains_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "retired_codes" ADD CONSTRAINT "retired_codes_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "overlays" ADD CONSTRAINT "overlays_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "overlay_submissions" ADD CONSTRAINT "overlay_submissions_overlay_id_fkey" FOREIGN KEY ("overlay_id") REFERENCES "overlays"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "campaign_links" ADD CONSTRAINT "campaign_links_campaign_id_fkey" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "campaign_links" ADD CONSTRAINT "campaign_links_link_id_fkey" FOREIGN KEY ("link_id") REFERENCES "links"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "channels" ADD CONSTRAINT "channels_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "channel_links" ADD CONSTRAINT "channel_links_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "channels"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "channel_links" ADD CONSTRAINT "channel_links_link_id_fkey" FOREIGN KEY ("link_id") REFERENCES "links"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "import_jobs" ADD CONSTRAINT "import_jobs_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "import_jobs" ADD CONSTRAINT "import_jobs_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "import_row_errors" ADD CONSTRAINT "import_row_errors_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "import_jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "import_row_renames" ADD CONSTRAINT "import_row_renames_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "import_jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "import_row_attention" ADD CONSTRAINT "import_row_attention_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "import_jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_clicks" ADD CONSTRAINT "webhook_clicks_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;
