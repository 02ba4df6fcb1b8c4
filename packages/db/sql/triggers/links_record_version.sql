-- Bumps links.version when an UPDATE sets a column the redirect record holds; an UPDATE of anything
-- else (the click totals, the title) leaves it alone (kurz_links_next_version).
CREATE OR REPLACE TRIGGER links_record_version
  BEFORE UPDATE OF account_id, short_code, original_url, password_hash, is_active, expires_at,
    overlay_id, domain_id, frameable, rules, split, forward_query, max_clicks, expired_url, og_title,
    og_description, og_image_id, ios_url, android_url, broken_url, broken_since
  ON "links"
  FOR EACH ROW EXECUTE FUNCTION kurz_links_next_version();
