-- A branded domain is deleted together with its links (docs/dashboard-manage.md "Deleting a domain"),
-- in one transaction that deletes the links first. NO ACTION (checked at the end of each statement, so
-- an account's cascade still removes both) refuses a domain delete that would leave a link behind,
-- instead of SET NULL moving it silently to the main host while its redirect record says otherwise.
ALTER TABLE "links" DROP CONSTRAINT "links_domain_id_fkey";

ALTER TABLE "links" ADD CONSTRAINT "links_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE NO ACTION ON UPDATE CASCADE;
