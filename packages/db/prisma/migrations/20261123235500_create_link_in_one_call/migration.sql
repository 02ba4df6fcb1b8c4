-- A link's creation in one call (issue 15, decision 0019): the link row, its `link.created` outbox event
-- and the account's stored link count (decision 0012), as three statements inside one function, called
-- as one statement. The account row's lock is then held from the count's update to the commit without
-- a round trip to the application in between; in a transaction driven from Node it was held across two
-- (the update's answer, then COMMIT), which serialised one account's creates at a few hundred a second.
--
-- The function is VOLATILE, so each statement takes a fresh snapshot (READ COMMITTED): the count's
-- update sees the retired code of a concurrent delete of the same code that the insert waited for,
-- exactly as when it was a statement of its own. Anything refused raises, which rolls back the call:
--   KZ401 unknown account; KZ409 the code is retired (a generated code: draw again) or reserved to
--   another account within the grace (p_cutoff); KZ403 the account is at its link limit.
-- A code in use raises the unique violation of links_short_code_key as before.
CREATE FUNCTION kurz_create_link(
  p_id uuid,
  p_account uuid,
  p_code text,
  p_url text,
  p_title text,
  p_password_hash text,
  p_expires_at timestamptz,
  p_now timestamptz,
  p_generated boolean,
  p_cutoff timestamptz,
  p_topic text,
  p_event jsonb
) RETURNS timestamptz
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_expires timestamptz;
BEGIN
  INSERT INTO links (id, account_id, short_code, original_url, title, password_hash, is_active,
                     analytics_public, expires_at, created_at, updated_at)
  SELECT p_id, a.id, p_code, p_url, p_title, p_password_hash, true, false,
         COALESCE(p_expires_at, now() + make_interval(hours => a.default_expiry_hours)), p_now, p_now
  FROM accounts a
  WHERE a.id = p_account
    AND NOT (p_generated AND EXISTS (SELECT 1 FROM retired_codes WHERE short_code = p_code))
  RETURNING expires_at INTO v_expires;
  IF NOT FOUND THEN
    IF NOT EXISTS (SELECT 1 FROM accounts WHERE id = p_account) THEN
      RAISE EXCEPTION 'unknown account' USING ERRCODE = 'KZ401';
    END IF;
    RAISE EXCEPTION 'the code is retired' USING ERRCODE = 'KZ409';
  END IF;

  INSERT INTO outbox_events (topic, key, payload)
  VALUES (p_topic, p_id::text, jsonb_set(p_event, '{link,expires_at}',
    COALESCE(to_jsonb(to_char(v_expires AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')), 'null')));

  UPDATE accounts SET link_count = link_count + 1
  WHERE id = p_account AND link_count + 1 <= link_limit
    AND NOT EXISTS (SELECT 1 FROM retired_codes WHERE short_code = p_code
      AND account_id <> p_account AND retired_at > p_cutoff);
  IF NOT FOUND THEN
    IF EXISTS (SELECT 1 FROM retired_codes WHERE short_code = p_code
        AND account_id <> p_account AND retired_at > p_cutoff) THEN
      RAISE EXCEPTION 'the code is reserved' USING ERRCODE = 'KZ409';
    END IF;
    RAISE EXCEPTION 'link limit reached' USING ERRCODE = 'KZ403';
  END IF;
  RETURN v_expires;
END
$$;
