-- AlterTable
ALTER TABLE "import_jobs" ADD COLUMN     "needs_attention" INTEGER NOT NULL DEFAULT 0;

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

-- AddForeignKey
ALTER TABLE "import_row_attention" ADD CONSTRAINT "import_row_attention_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "import_jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
