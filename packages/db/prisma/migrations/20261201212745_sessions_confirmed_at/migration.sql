-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "confirmed_at" TIMESTAMPTZ(3);
