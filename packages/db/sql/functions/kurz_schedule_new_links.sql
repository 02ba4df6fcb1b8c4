-- Gives every new link its row in link_health_schedule, due at once (`-infinity`: a link never checked
-- goes before the links due again), so the health scheduler finds it without scanning links
-- (docs/health.md). One INSERT per statement, however many links the statement made.
CREATE OR REPLACE FUNCTION kurz_schedule_new_links() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO link_health_schedule (link_id, next_check_at)
  SELECT id, '-infinity'::timestamptz FROM added_links
  ON CONFLICT (link_id) DO NOTHING;
  RETURN NULL;
END;
$$;
