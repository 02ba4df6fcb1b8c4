-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "rate_limit_per_hour" INTEGER,
ADD COLUMN     "rate_limit_per_minute" INTEGER;
