-- AlterTable
ALTER TABLE "link_health" ADD COLUMN     "consecutive_failures" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "links" ADD COLUMN     "broken_since" TIMESTAMPTZ(3),
ADD COLUMN     "broken_url" TEXT;

-- CreateIndex
CREATE INDEX "links_account_id_broken_since_idx" ON "links"("account_id", "broken_since");

-- A link whose last check failed counts that check: one more failing check makes it broken.
UPDATE "link_health" SET "consecutive_failures" = 1
WHERE "state" IN ('client_error', 'server_error', 'tls_error', 'dns_error', 'timeout', 'connection_error', 'redirect_loop');
