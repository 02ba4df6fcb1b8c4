-- Counts p_n new links of the account, or raises KZ403 (link limit) / KZ401 (unknown account): the
-- all-or-nothing form of kurz_count_links_upto, so the rebalance is written once.
CREATE OR REPLACE FUNCTION kurz_count_links(p_account uuid, p_n integer) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF kurz_count_links_upto(p_account, p_n) < p_n THEN
    RAISE EXCEPTION 'link limit reached' USING ERRCODE = 'KZ403';
  END IF;
END
$$;
