-- CreateTable
CREATE TABLE "link_health" (
    "link_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "state" TEXT NOT NULL,
    "status_code" INTEGER,
    "final_url" TEXT NOT NULL,
    "hops" JSONB NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "detail" TEXT,
    "checked_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "link_health_pkey" PRIMARY KEY ("link_id")
);

-- CreateTable
CREATE TABLE "link_health_changes" (
    "id" BIGSERIAL NOT NULL,
    "link_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "state" TEXT NOT NULL,
    "status_code" INTEGER,
    "final_url" TEXT NOT NULL,
    "checked_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "link_health_changes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "link_health_account_id_state_idx" ON "link_health"("account_id", "state");

-- CreateIndex
CREATE INDEX "link_health_changes_account_id_link_id_checked_at_idx" ON "link_health_changes"("account_id", "link_id", "checked_at" DESC);

-- AddForeignKey
ALTER TABLE "link_health" ADD CONSTRAINT "link_health_link_id_fkey" FOREIGN KEY ("link_id") REFERENCES "links"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "link_health_changes" ADD CONSTRAINT "link_health_changes_link_id_fkey" FOREIGN KEY ("link_id") REFERENCES "links"("id") ON DELETE CASCADE ON UPDATE CASCADE;
