-- Creates a batch of links in one statement and one commit (decision 0044):
-- `SELECT * FROM kurz_create_links($1::jsonb)`.
--
-- p_items: a JSON array of objects with the members of jsonb_to_recordset's list below; `i` is the
-- caller's index of the item, returned with its outcome. `expires_at` null takes the account's default
-- expiry, `forward_query` null the account's forward_query (both returned as the row has them); `event`
-- is the link.created event, whose link.expires_at is set here as the row has it;
-- `audit`, when given, is the link.created audit event (kurz_record_audit's row, without resource_id),
-- written with the link: each item carries its own caller's, as a batch gathers several callers.
-- Returns one row per item: its expiry and forward_query, or the SQLSTATE it was refused with (and for
-- 23505 the constraint, after a colon).
--
-- Each item is done or refused on its own: its insert and its outbox event run in a block of their own
-- (a subtransaction), and a refusal rolls back only that block. Refusals are returned, not raised
-- (KZ401 unknown account, KZ409 retired or reserved code, KZ403 link limit, 23503 domain or overlay
-- gone, 23505 with the constraint's name for a code in use). Anything else (a deadlock, a lost
-- connection) fails the whole call, and the caller may retry it: nothing of it was committed.
--
-- The count comes last, once per account in the batch, in the order of the accounts' ids: a batch then
-- holds at most one shard of an account when it counts, so kurz_rebalance_links_upto's rule (its caller
-- holds no shard of the account) holds, and two batches lock shards in one order. A batch with less
-- room than links gets what room there is; its links past the room, in the order they were sent, are
-- deleted again in the same transaction and refused with KZ403, so the count stays exact.
DROP FUNCTION IF EXISTS kurz_create_links(jsonb);
CREATE OR REPLACE FUNCTION kurz_create_links(p_items jsonb)
RETURNS TABLE (item integer, expires timestamptz, failure text, forward_query boolean)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  r record;
  v_expires timestamptz;
  v_forward boolean;
  v_event bigint;
  v_constraint text;
  -- The links inserted so far, in the order inserted (by account, then by the caller's index).
  v_account uuid[] := '{}';
  v_item integer[] := '{}';
  v_link uuid[] := '{}';
  v_event_id bigint[] := '{}';
  v_expiry timestamptz[] := '{}';
  v_forwards boolean[] := '{}';
  v_granted integer;
  v_end integer;
  k integer;
  j integer;
BEGIN
  FOR r IN
    SELECT * FROM jsonb_to_recordset(p_items) AS t(i integer, id uuid, account uuid, code text, url text,
      title text, password_hash text, expires_at timestamptz, created timestamptz, generated boolean,
      cutoff timestamptz, topic text, event jsonb, overlay_id integer, domain_id integer, frameable boolean,
      frame_checked_at timestamptz, audit jsonb, rules jsonb, split jsonb, forward_query boolean,
      max_clicks integer, expired_url text, og_title text, og_description text, og_image_id text,
      ios_url text, android_url text, broken_url text)
    ORDER BY t.account, t.i
  LOOP
    BEGIN
      INSERT INTO links (id, account_id, short_code, original_url, title, password_hash, is_active,
                         analytics_public, expires_at, created_at, updated_at,
                         overlay_id, domain_id, frameable, frame_checked_at, rules, split, forward_query,
                         max_clicks, expired_url, og_title, og_description, og_image_id, ios_url,
                         android_url, broken_url)
      SELECT r.id, a.id, r.code, r.url, r.title, r.password_hash, true, false,
             COALESCE(r.expires_at, now() + make_interval(hours => a.default_expiry_hours)), r.created,
             r.created, r.overlay_id, r.domain_id, r.frameable, r.frame_checked_at, r.rules, r.split,
             COALESCE(r.forward_query, a.forward_query), r.max_clicks, r.expired_url, r.og_title,
             r.og_description, r.og_image_id, r.ios_url, r.android_url, r.broken_url
      FROM accounts a
      WHERE a.id = r.account
        AND NOT (r.generated AND EXISTS (SELECT 1 FROM retired_codes WHERE short_code = r.code))
      RETURNING links.expires_at, links.forward_query INTO v_expires, v_forward;
      IF NOT FOUND THEN
        IF NOT EXISTS (SELECT 1 FROM accounts WHERE id = r.account) THEN
          RAISE EXCEPTION 'unknown account' USING ERRCODE = 'KZ401';
        END IF;
        RAISE EXCEPTION 'the code is retired' USING ERRCODE = 'KZ409';
      END IF;

      INSERT INTO outbox_events (topic, key, payload)
      VALUES (r.topic, r.id::text, jsonb_set(r.event, '{link,expires_at}',
        COALESCE(to_jsonb(to_char(v_expires AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')), 'null')))
      RETURNING id INTO v_event;

      IF r.audit IS NOT NULL THEN
        PERFORM kurz_record_audit(jsonb_build_array(r.audit || jsonb_build_object('resource_id', r.id::text)));
      END IF;

      -- A statement of its own: a fresh snapshot sees a concurrent delete of the same code that the
      -- insert waited for (decision 0037's reason, unchanged).
      IF EXISTS (SELECT 1 FROM retired_codes WHERE short_code = r.code
          AND account_id <> r.account AND retired_at > r.cutoff) THEN
        RAISE EXCEPTION 'the code is reserved' USING ERRCODE = 'KZ409';
      END IF;

      v_account := v_account || r.account;
      v_item := v_item || r.i;
      v_link := v_link || r.id;
      v_event_id := v_event_id || v_event;
      v_expiry := v_expiry || v_expires;
      v_forwards := v_forwards || v_forward;
    EXCEPTION
      WHEN unique_violation THEN
        GET STACKED DIAGNOSTICS v_constraint = CONSTRAINT_NAME;
        item := r.i; expires := NULL; forward_query := NULL; failure := '23505:' || v_constraint;
        RETURN NEXT;
      WHEN foreign_key_violation OR SQLSTATE 'KZ401' OR SQLSTATE 'KZ409' THEN
        item := r.i; expires := NULL; forward_query := NULL; failure := SQLSTATE;
        RETURN NEXT;
    END;
  END LOOP;

  -- Count each account's links, one run of them at a time (they were inserted by account).
  k := 1;
  WHILE k <= COALESCE(array_length(v_account, 1), 0) LOOP
    v_end := k;
    WHILE v_end <= array_length(v_account, 1) AND v_account[v_end] = v_account[k] LOOP
      v_end := v_end + 1;
    END LOOP;
    v_granted := kurz_count_links_upto(v_account[k], v_end - k);
    FOR j IN k .. v_end - 1 LOOP
      item := v_item[j];
      IF j - k < v_granted THEN
        expires := v_expiry[j];
        forward_query := v_forwards[j];
        failure := NULL;
      ELSE
        DELETE FROM outbox_events WHERE id = v_event_id[j];
        DELETE FROM audit_events WHERE account_id = v_account[j] AND resource_type = 'link'
          AND resource_id = v_link[j]::text AND action = 'link.created';
        DELETE FROM links WHERE id = v_link[j];
        expires := NULL;
        forward_query := NULL;
        failure := 'KZ403';
      END IF;
      RETURN NEXT;
    END LOOP;
    k := v_end;
  END LOOP;
END
$$;
