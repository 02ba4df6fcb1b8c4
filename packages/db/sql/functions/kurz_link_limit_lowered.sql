-- Trigger link_limit_lowered: a lowered limit takes back every unused lease in the transaction that
-- lowers it (it holds the account row, as a rebalance does, and then takes the shards in order), so no
-- create counts against the old limit after it commits. A raised one needs nothing: the leases still
-- fit, and the next rebalance hands out the new room.
CREATE OR REPLACE FUNCTION kurz_link_limit_lowered() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM FROM link_quota WHERE account_id = NEW.id ORDER BY shard FOR NO KEY UPDATE;
  UPDATE link_quota SET lease = used WHERE account_id = NEW.id AND lease <> used;
  RETURN NULL;
END
$$;
