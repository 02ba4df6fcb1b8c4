-- The account's link count in shards with leased quotas (issue 15, decision 0037). accounts.link_count
-- (decision 0012) was updated by every create, and its row lock was held until the commit's WAL flush:
-- one account's creates were serialised at a few hundred a second however many ran at once. Now the
-- count is the sum of `used` over 16 rows per account, and a create locks one of them.
--
-- Invariants, kept by every function below (the only writers):
--   * sum(used) = the account's links (each insert and delete changes it in the same transaction);
--   * used <= lease on every shard (CHECK), and the unused leases, sum(lease - used), never exceed the
--     room left, link_limit - sum(used). So a create that fits in its shard's lease fits in the limit,
--     without looking at the other shards. A rebalance, holding the account row and every shard,
--     makes the two sides equal; a create or a delete changes both by the same amount; lowering the
--     limit takes every unused lease back.
-- Lock order, everywhere: the account row, then shards by ascending number. A create's fast path locks
-- one shard and nothing after it; a delete may take the account row, then one shard, last.

LOCK TABLE "accounts" IN SHARE MODE; -- no create or delete changes link_count while it is copied

-- CreateTable
CREATE TABLE "link_quota" (
    "account_id" UUID NOT NULL,
    "shard" INTEGER NOT NULL,
    "used" INTEGER NOT NULL DEFAULT 0,
    "lease" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "link_quota_pkey" PRIMARY KEY ("account_id","shard"),
    CONSTRAINT "link_quota_used_within_lease" CHECK ("used" <= "lease")
);

-- AddForeignKey
ALTER TABLE "link_quota" ADD CONSTRAINT "link_quota_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill from the stored counts: all on shard 0, with no unused lease (the first create rebalances).
INSERT INTO "link_quota" ("account_id", "shard", "used", "lease")
SELECT a."id", s, CASE WHEN s = 0 THEN a."link_count" ELSE 0 END, CASE WHEN s = 0 THEN a."link_count" ELSE 0 END
FROM "accounts" a CROSS JOIN generate_series(0, 15) s;

-- Spreads the account's room as leases and counts p_n links on p_shard, or raises KZ403 when p_n do not
-- fit. The slow path of kurz_count_links; the caller must hold no shard of the account (see there).
CREATE FUNCTION kurz_rebalance_links(p_account uuid, p_n integer, p_shard integer) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_shards CONSTANT integer := 16;
  v_limit integer;
  v_used bigint;
  v_spare bigint;
BEGIN
  -- NO KEY UPDATE, not UPDATE: the caller's own link insert holds KEY SHARE on this row (the foreign
  -- key), and so may every concurrent create's; FOR UPDATE would wait for them, and two of them here
  -- would deadlock.
  SELECT link_limit INTO v_limit FROM accounts WHERE id = p_account FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'unknown account' USING ERRCODE = 'KZ401';
  END IF;
  -- A new account gets its shards here (under the account's lock, so by one rebalance at a time).
  INSERT INTO link_quota (account_id, shard)
  SELECT p_account, s FROM generate_series(0, v_shards - 1) s
  ON CONFLICT DO NOTHING;
  -- Every shard, in order: waits for the creates in flight on them, and none can start after.
  PERFORM FROM link_quota WHERE account_id = p_account ORDER BY shard FOR NO KEY UPDATE;
  -- A statement of its own, so its snapshot sees what those creates committed.
  SELECT COALESCE(sum(used), 0) INTO v_used FROM link_quota WHERE account_id = p_account;
  IF v_used + p_n > v_limit THEN
    RAISE EXCEPTION 'link limit reached' USING ERRCODE = 'KZ403';
  END IF;
  v_spare := v_limit - v_used - p_n;
  UPDATE link_quota SET
    used = used + CASE WHEN shard = p_shard THEN p_n ELSE 0 END,
    lease = used + CASE WHEN shard = p_shard THEN p_n ELSE 0 END
      + (v_spare / v_shards)::integer + CASE WHEN shard < v_spare % v_shards THEN 1 ELSE 0 END
  WHERE account_id = p_account;
END
$$;

-- Counts p_n new links of the account, or raises KZ403 (link limit) / KZ401 (unknown account). The
-- fast path adds them to one shard, chosen at random, within its lease: one row lock, no other row
-- read. When the shard has no room, the rebalance spreads the account's room again.
CREATE FUNCTION kurz_count_links(p_account uuid, p_n integer) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_shard integer := floor(random() * 16)::integer;
BEGIN
  -- In a block of its own (a subtransaction): an UPDATE that waited for a concurrent one and then
  -- found `used + p_n <= lease` false keeps its lock on the row. Holding that shard while the rebalance
  -- waits for the account row could deadlock with a rebalance that holds the account row and waits for
  -- the shard; rolling the block back releases it.
  BEGIN
    UPDATE link_quota SET used = used + p_n
    WHERE account_id = p_account AND shard = v_shard AND used + p_n <= lease;
    IF FOUND THEN
      RETURN;
    END IF;
    RAISE EXCEPTION 'no room in the shard''s lease' USING ERRCODE = 'KZ100';
  EXCEPTION WHEN SQLSTATE 'KZ100' THEN
    NULL;
  END;
  PERFORM kurz_rebalance_links(p_account, p_n, v_shard);
END
$$;

-- Uncounts p_n deleted links (and their p_clicks clicks from total_clicks). One shard, any: only the
-- sum is the count, so a shard may go below zero. Its lease stays, and the room it frees is the shard's
-- until the next rebalance (both sides of the invariant grow by p_n). The upsert covers an account
-- whose shards a rebalance has not created yet.
CREATE FUNCTION kurz_uncount_links(p_account uuid, p_n integer, p_clicks bigint) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF p_clicks > 0 THEN
    UPDATE accounts SET total_clicks = GREATEST(total_clicks - p_clicks, 0) WHERE id = p_account;
  END IF;
  INSERT INTO link_quota AS q (account_id, shard, used, lease)
  VALUES (p_account, floor(random() * 16)::integer, -p_n, 0)
  ON CONFLICT (account_id, shard) DO UPDATE SET used = q.used - p_n;
END
$$;

-- Sets the account's count to its rows, for links written behind the API's back (the benchmarks'
-- seeds) and for an operator's repair. Leases are taken back; the next create rebalances.
CREATE FUNCTION kurz_recount_links(p_account uuid) RETURNS integer
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_count integer;
BEGIN
  PERFORM FROM accounts WHERE id = p_account FOR NO KEY UPDATE;
  INSERT INTO link_quota (account_id, shard)
  SELECT p_account, s FROM generate_series(0, 15) s
  ON CONFLICT DO NOTHING;
  PERFORM FROM link_quota WHERE account_id = p_account ORDER BY shard FOR NO KEY UPDATE;
  SELECT count(*) INTO v_count FROM links WHERE account_id = p_account;
  UPDATE link_quota SET used = CASE WHEN shard = 0 THEN v_count ELSE 0 END,
    lease = CASE WHEN shard = 0 THEN v_count ELSE 0 END
  WHERE account_id = p_account;
  RETURN v_count;
END
$$;

-- A lowered limit takes back every unused lease in the transaction that lowers it (it holds the account
-- row, as a rebalance does, and then takes the shards in order), so no create counts against the old
-- limit after it commits. A raised one needs nothing: the leases still fit, and the next rebalance
-- hands out the new room.
CREATE FUNCTION kurz_link_limit_lowered() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM FROM link_quota WHERE account_id = NEW.id ORDER BY shard FOR NO KEY UPDATE;
  UPDATE link_quota SET lease = used WHERE account_id = NEW.id AND lease <> used;
  RETURN NULL;
END
$$;

CREATE TRIGGER link_limit_lowered AFTER UPDATE OF link_limit ON accounts
FOR EACH ROW WHEN (NEW.link_limit < OLD.link_limit) EXECUTE FUNCTION kurz_link_limit_lowered();

-- kurz_create_link (decisions 0019, 0037): as before, but the reserved-code check is a statement of its
-- own (a fresh snapshot after the insert, which may have waited for a concurrent delete of the same
-- code), and the count is kurz_count_links, still last: the shard is locked only from it to commit.
CREATE OR REPLACE FUNCTION kurz_create_link(
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
  p_event jsonb,
  p_overlay integer,
  p_domain integer,
  p_frameable boolean,
  p_frame_checked_at timestamptz
) RETURNS timestamptz
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_expires timestamptz;
BEGIN
  INSERT INTO links (id, account_id, short_code, original_url, title, password_hash, is_active,
                     analytics_public, expires_at, created_at, updated_at,
                     overlay_id, domain_id, frameable, frame_checked_at)
  SELECT p_id, a.id, p_code, p_url, p_title, p_password_hash, true, false,
         COALESCE(p_expires_at, now() + make_interval(hours => a.default_expiry_hours)), p_now, p_now,
         p_overlay, p_domain, p_frameable, p_frame_checked_at
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

  IF EXISTS (SELECT 1 FROM retired_codes WHERE short_code = p_code
      AND account_id <> p_account AND retired_at > p_cutoff) THEN
    RAISE EXCEPTION 'the code is reserved' USING ERRCODE = 'KZ409';
  END IF;

  PERFORM kurz_count_links(p_account, 1);
  RETURN v_expires;
END
$$;

-- AlterTable
ALTER TABLE "accounts" DROP CONSTRAINT "accounts_link_count_check";
ALTER TABLE "accounts" DROP COLUMN "link_count";
