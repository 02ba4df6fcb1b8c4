-- AlterTable
ALTER TABLE "import_jobs" ADD COLUMN     "domain_id" INTEGER,
ADD COLUMN     "rename_reserved" TEXT;

-- CreateTable
CREATE TABLE "import_row_renames" (
    "job_id" UUID NOT NULL,
    "row" INTEGER NOT NULL,
    "code" TEXT NOT NULL,
    "short_code" TEXT NOT NULL,

    CONSTRAINT "import_row_renames_pkey" PRIMARY KEY ("job_id","row")
);

-- CreateIndex
CREATE INDEX "import_jobs_domain_id_idx" ON "import_jobs"("domain_id");

-- AddForeignKey
ALTER TABLE "import_jobs" ADD CONSTRAINT "import_jobs_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "import_row_renames" ADD CONSTRAINT "import_row_renames_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "import_jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
