-- Triggers domains_record_version and overlays_record_version: every UPDATE of a domain or an overlay
-- draws a new version (under the row's lock, so two edits draw in the order they commit).
CREATE OR REPLACE FUNCTION kurz_next_record_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.version := kurz_new_record_version();
  RETURN NEW;
END
$$;
