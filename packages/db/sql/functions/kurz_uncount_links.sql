-- Uncounts p_n deleted links (and their p_clicks clicks from total_clicks). One shard, any: only the
-- sum is the count, so a shard may go below zero. Its lease stays, and the room it frees is the shard's
-- until the next rebalance (both sides of the invariant grow by p_n). The upsert covers an account
-- whose shards a rebalance has not created yet.
CREATE OR REPLACE FUNCTION kurz_uncount_links(p_account uuid, p_n integer, p_clicks bigint) RETURNS void
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
