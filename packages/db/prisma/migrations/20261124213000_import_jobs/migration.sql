-- Import jobs (issue 16, docs/import-export.md): one row per uploaded file, its counters moved by each
-- batch in the transaction that creates the batch's links, and the rows it refused.
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

-- CreateIndex
CREATE INDEX "import_jobs_account_id_created_at_idx" ON "import_jobs"("account_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "import_jobs_account_id_content_sha256_idx" ON "import_jobs"("account_id", "content_sha256");

-- CreateIndex
CREATE INDEX "import_jobs_status_lease_until_idx" ON "import_jobs"("status", "lease_until");

-- AddForeignKey
ALTER TABLE "import_jobs" ADD CONSTRAINT "import_jobs_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "import_row_errors" ADD CONSTRAINT "import_row_errors_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "import_jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
