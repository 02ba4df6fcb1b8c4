-- Each link's redirect record carries the row's version (decision 0051): management writes the record
-- to Redis after its commit, and two writes of one link (two edits on two instances, an edit and the
-- redirect's miss path, a delete and a late write) can reach Redis in either order. Redis keeps the
-- highest version it was given, and a deleted link's tombstone, so a late write never undoes a newer
-- one or brings a deleted link back.
--
-- The version is the database's, not a clock's: a trigger adds one whenever an UPDATE sets a column the
-- record holds, whichever code path wrote it (Prisma, raw SQL, the legacy API). An UPDATE of anything
-- else (the click totals, the title) leaves it alone. A new row starts at 1: a create pays nothing.
ALTER TABLE "links" ADD COLUMN "version" BIGINT NOT NULL DEFAULT 1;

CREATE FUNCTION kurz_links_next_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.version := OLD.version + 1;
  RETURN NEW;
END
$$;

CREATE TRIGGER links_record_version
  BEFORE UPDATE OF account_id, short_code, original_url, password_hash, is_active, expires_at,
    overlay_id, domain_id, frameable
  ON "links"
  FOR EACH ROW EXECUTE FUNCTION kurz_links_next_version();
