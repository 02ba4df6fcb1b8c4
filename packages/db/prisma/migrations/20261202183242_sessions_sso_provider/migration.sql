-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "sso_provider" TEXT;
