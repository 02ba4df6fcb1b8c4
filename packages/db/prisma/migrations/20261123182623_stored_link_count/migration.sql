-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "link_count" INTEGER NOT NULL DEFAULT 0;

-- Backfill from the rows that exist (decision 0012). The links table is locked against writes until
-- this migration commits, so no create or delete can slip between the count and the column.
LOCK TABLE "links" IN SHARE MODE;
UPDATE "accounts" a SET "link_count" = c.n
FROM (SELECT "account_id", count(*)::int AS n FROM "links" GROUP BY "account_id") c
WHERE c."account_id" = a."id";

-- A counter below zero can only be a bug in the code that keeps it; refuse it rather than store it.
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_link_count_check" CHECK ("link_count" >= 0);
