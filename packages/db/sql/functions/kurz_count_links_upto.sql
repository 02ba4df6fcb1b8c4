-- Counts up to p_n new links of the account and returns how many it counted: p_n on the fast path
-- (one shard, chosen at random, within its lease), else what the rebalance finds room for.
CREATE OR REPLACE FUNCTION kurz_count_links_upto(p_account uuid, p_n integer) RETURNS integer
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
      RETURN p_n;
    END IF;
    RAISE EXCEPTION 'no room in the shard''s lease' USING ERRCODE = 'KZ100';
  EXCEPTION WHEN SQLSTATE 'KZ100' THEN
    NULL;
  END;
  RETURN kurz_rebalance_links_upto(p_account, p_n, v_shard);
END
$$;
