-- AlterTable
ALTER TABLE "import_jobs" ADD COLUMN     "passwords_hashed" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "title_budget" TEXT;
