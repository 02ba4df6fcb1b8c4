-- The next version of a branded domain's, overlay's or rotator's Redis record (decision 0052): one
-- sequence for all three. Column defaults call this function rather than nextval itself, because
-- Prisma reads a nextval default as a column's own sequence (autoincrement) and would drop a shared one.
CREATE OR REPLACE FUNCTION kurz_new_record_version() RETURNS bigint LANGUAGE sql VOLATILE AS
  $$ SELECT nextval('record_versions') $$;
