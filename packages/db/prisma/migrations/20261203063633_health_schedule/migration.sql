-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "health_check_interval" TEXT NOT NULL DEFAULT 'daily';

-- CreateTable
CREATE TABLE "link_health_schedule" (
    "link_id" UUID NOT NULL,
    "next_check_at" TIMESTAMPTZ(3),

    CONSTRAINT "link_health_schedule_pkey" PRIMARY KEY ("link_id")
);

-- CreateIndex
CREATE INDEX "link_health_schedule_next_check_at_idx" ON "link_health_schedule"("next_check_at");

-- AddForeignKey
ALTER TABLE "link_health_schedule" ADD CONSTRAINT "link_health_schedule_link_id_fkey" FOREIGN KEY ("link_id") REFERENCES "links"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Every link already there gets its row (the trigger adds the rows of links made from now on): due a
-- day after its last check, or at once when it was never checked.
INSERT INTO "link_health_schedule" ("link_id", "next_check_at")
SELECT l."id", COALESCE(h."checked_at" + interval '1 day', '-infinity')
FROM "links" l LEFT JOIN "link_health" h ON h."link_id" = l."id";
