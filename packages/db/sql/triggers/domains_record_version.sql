-- A new version for the domain's Redis record on every UPDATE (kurz_next_record_version).
CREATE OR REPLACE TRIGGER domains_record_version BEFORE UPDATE ON "domains"
  FOR EACH ROW EXECUTE FUNCTION kurz_next_record_version();
