-- Branded domains', overlays' and rotators' records in Redis carry a version too (decision 0052, after
-- decision 0051 did it for links): management writes them after its commit, so two writes of one
-- (two edits on two instances, an edit and a verification that failed, an edit and the redirect's
-- miss path) can reach Redis in either order, and Redis keeps the highest version it was given.
--
-- One sequence for all three: a domain's and an overlay's version is drawn by a trigger on every UPDATE
-- (under the row's lock, so two edits draw in the order they commit), a new row's by its default; a
-- rotator has no row of its own to carry one (its links are rows of campaign_links), so management
-- draws its version before reading it (legacy-records.ts). Every row gets a version here: the ALTERs
-- rewrite both tables, which are small (an account's domains and overlays).
CREATE SEQUENCE "record_versions";
-- The default calls a function rather than nextval itself: Prisma reads a nextval default as a column's
-- own sequence (autoincrement) and would drop a shared one.
CREATE FUNCTION kurz_new_record_version() RETURNS bigint LANGUAGE sql VOLATILE AS
  $$ SELECT nextval('record_versions') $$;

ALTER TABLE "domains" ADD COLUMN "version" BIGINT NOT NULL DEFAULT kurz_new_record_version();
ALTER TABLE "overlays" ADD COLUMN "version" BIGINT NOT NULL DEFAULT kurz_new_record_version();

CREATE FUNCTION kurz_next_record_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.version := kurz_new_record_version();
  RETURN NEW;
END
$$;

CREATE TRIGGER domains_record_version BEFORE UPDATE ON "domains"
  FOR EACH ROW EXECUTE FUNCTION kurz_next_record_version();
CREATE TRIGGER overlays_record_version BEFORE UPDATE ON "overlays"
  FOR EACH ROW EXECUTE FUNCTION kurz_next_record_version();
