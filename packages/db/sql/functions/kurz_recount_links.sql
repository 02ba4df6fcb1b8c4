-- Sets the account's count to its rows, for links written behind the API's back (the benchmarks'
-- seeds) and for an operator's repair. Leases are taken back; the next create rebalances.
CREATE OR REPLACE FUNCTION kurz_recount_links(p_account uuid) RETURNS integer
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
