-- The outbox relay deletes the events it has published instead of marking them (issue 15, decision
-- 0042). Marked rows were never read again and were never removed: the table grew by one row (with its
-- payload) per link change, forever, and each mark was an UPDATE that wrote a new version of the row
-- and a new entry in both of its indexes. Now every row in the table is an unpublished event.
DELETE FROM "outbox_events" WHERE "published_at" IS NOT NULL;

-- DropIndex
DROP INDEX "outbox_events_published_at_id_idx";

-- AlterTable
ALTER TABLE "outbox_events" DROP COLUMN "published_at";
