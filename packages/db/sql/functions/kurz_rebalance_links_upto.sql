-- Spreads the account's room as leases and counts up to p_n links on p_shard: as many as fit, which it
-- returns (0: none, and nothing changed). The slow path of kurz_count_links_upto; the caller must hold
-- no shard of the account.
--
-- The link count lives in 16 shards per account with leased quotas (decision 0037). Invariants, kept by
-- the kurz_*count_links* functions (the only writers of link_quota):
--   * sum(used) = the account's links (each insert and delete changes it in the same transaction);
--   * used <= lease on every shard (CHECK), and the unused leases, sum(lease - used), never exceed the
--     room left, link_limit - sum(used). So a create that fits in its shard's lease fits in the limit
--     without looking at the other shards. A rebalance, holding the account row and every shard, makes
--     the two sides equal; a create or a delete changes both by the same amount; lowering the limit
--     takes every unused lease back (kurz_link_limit_lowered).
-- Lock order, everywhere: the account row, then shards by ascending number.
CREATE OR REPLACE FUNCTION kurz_rebalance_links_upto(p_account uuid, p_n integer, p_shard integer) RETURNS integer
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_shards CONSTANT integer := 16;
  v_limit integer;
  v_used bigint;
  v_n integer;
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
  v_n := LEAST(p_n, GREATEST(v_limit - v_used, 0))::integer;
  IF v_n = 0 THEN
    RETURN 0;
  END IF;
  v_spare := v_limit - v_used - v_n;
  UPDATE link_quota SET
    used = used + CASE WHEN shard = p_shard THEN v_n ELSE 0 END,
    lease = used + CASE WHEN shard = p_shard THEN v_n ELSE 0 END
      + (v_spare / v_shards)::integer + CASE WHEN shard < v_spare % v_shards THEN 1 ELSE 0 END
  WHERE account_id = p_account;
  RETURN v_n;
END
$$;
