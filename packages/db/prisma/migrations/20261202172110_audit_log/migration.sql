-- The audit log (docs/workspaces.md, "Audit log"): one row per change or sign-in, written in the
-- change's own transaction, and each workspace's retention for it.

-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "audit_retention_days" INTEGER NOT NULL DEFAULT 365;

-- CreateTable
CREATE TABLE "audit_events" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor_type" TEXT NOT NULL,
    "actor_id" UUID,
    "actor_label" TEXT NOT NULL DEFAULT '',
    "action" TEXT NOT NULL,
    "resource_type" TEXT NOT NULL,
    "resource_id" TEXT,
    "ip_prefix" TEXT,
    "user_agent_family" TEXT,
    "details" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "audit_events_account_id_id_idx" ON "audit_events"("account_id", "id" DESC);

-- CreateIndex
CREATE INDEX "audit_events_account_id_actor_id_id_idx" ON "audit_events"("account_id", "actor_id", "id" DESC);

-- CreateIndex
CREATE INDEX "audit_events_account_id_resource_type_resource_id_id_idx" ON "audit_events"("account_id", "resource_type", "resource_id", "id" DESC);

-- CreateIndex
CREATE INDEX "audit_events_account_id_occurred_at_idx" ON "audit_events"("account_id", "occurred_at");

-- AddForeignKey
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written (Prisma does not model CHECK constraints).
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_audit_retention_days_range"
    CHECK ("audit_retention_days" BETWEEN 1 AND 3650);
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_actor_type_known"
    CHECK ("actor_type" IN ('user', 'key', 'system'));
