-- The all-or-nothing form of kurz_rebalance_links_upto (an import's batch): raises KZ403 when p_n links
-- do not fit; the raise rolls back what the partial count counted. The caller must hold no shard of the
-- account.
CREATE OR REPLACE FUNCTION kurz_rebalance_links(p_account uuid, p_n integer, p_shard integer) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF kurz_rebalance_links_upto(p_account, p_n, p_shard) < p_n THEN
    RAISE EXCEPTION 'link limit reached' USING ERRCODE = 'KZ403';
  END IF;
END
$$;
