-- A new version for the overlay's Redis record on every UPDATE (kurz_next_record_version).
CREATE OR REPLACE TRIGGER overlays_record_version BEFORE UPDATE ON "overlays"
  FOR EACH ROW EXECUTE FUNCTION kurz_next_record_version();
