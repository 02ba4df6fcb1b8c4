-- Takes back the account's unused leases when its link limit is lowered (kurz_link_limit_lowered).
CREATE OR REPLACE TRIGGER link_limit_lowered AFTER UPDATE OF link_limit ON accounts
FOR EACH ROW WHEN (NEW.link_limit < OLD.link_limit) EXECUTE FUNCTION kurz_link_limit_lowered();
