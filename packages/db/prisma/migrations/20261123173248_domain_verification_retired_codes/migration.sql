-- AlterTable
ALTER TABLE "domains" ADD COLUMN     "last_checked_at" TIMESTAMPTZ(3),
ADD COLUMN     "status" TEXT NOT NULL DEFAULT 'pending',
ADD COLUMN     "verification_token" TEXT NOT NULL DEFAULT replace((gen_random_uuid())::text, '-'::text, ''::text),
ADD COLUMN     "verified_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "retired_codes" (
    "short_code" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "link_id" UUID NOT NULL,
    "retired_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "retired_codes_pkey" PRIMARY KEY ("short_code")
);

-- CreateIndex
CREATE INDEX "retired_codes_account_id_retired_at_idx" ON "retired_codes"("account_id", "retired_at");

-- CreateIndex
CREATE INDEX "retired_codes_retired_at_idx" ON "retired_codes"("retired_at");

-- AddForeignKey
ALTER TABLE "retired_codes" ADD CONSTRAINT "retired_codes_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
