-- Trigger links_record_version: a link's redirect record carries the row's version (decision 0051), and
-- Redis keeps the highest version it was given, so a late write never undoes a newer one. The version is
-- the database's, not a clock's: it grows whenever an UPDATE sets a column the record holds, whichever
-- code path wrote it. A new row starts at 1 (the column's default).
CREATE OR REPLACE FUNCTION kurz_links_next_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.version := OLD.version + 1;
  RETURN NEW;
END
$$;
