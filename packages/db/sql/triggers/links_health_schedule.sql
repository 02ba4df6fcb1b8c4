-- A new link is due for its first health check (kurz_schedule_new_links); per statement, so a batch
-- create or an import adds its rows in one INSERT.
CREATE OR REPLACE TRIGGER links_health_schedule
  AFTER INSERT ON "links"
  REFERENCING NEW TABLE AS added_links
  FOR EACH STATEMENT EXECUTE FUNCTION kurz_schedule_new_links();
