-- Writes audit events (docs/workspaces.md, "Audit log"): `SELECT kurz_record_audit($1::jsonb)` with a
-- JSON array of rows as management's audit/record-audit.ts builds them (AuditRow), inside the caller's
-- transaction. An empty actor_label is filled with the actor's current key name or e-mail here, so
-- naming the actor costs the caller no query of its own. kurz_create_links calls it for each link it
-- creates.
CREATE OR REPLACE FUNCTION kurz_record_audit(p_rows jsonb)
RETURNS void
LANGUAGE sql VOLATILE AS $$
  INSERT INTO audit_events (account_id, actor_type, actor_id, actor_label, action, resource_type,
                            resource_id, ip_prefix, user_agent_family, details)
  SELECT e.account_id, e.actor_type, e.actor_id,
         COALESCE(NULLIF(e.actor_label, ''),
                  CASE e.actor_type
                    WHEN 'key' THEN (SELECT name FROM api_keys WHERE id = e.actor_id)
                    WHEN 'user' THEN (SELECT email FROM users WHERE id = e.actor_id)
                  END,
                  ''),
         e.action, e.resource_type, e.resource_id, e.ip_prefix, e.user_agent_family,
         COALESCE(e.details, '{}'::jsonb)
  FROM jsonb_to_recordset(p_rows) AS e(account_id uuid, actor_type text, actor_id uuid, actor_label text,
    action text, resource_type text, resource_id text, ip_prefix text, user_agent_family text,
    details jsonb)
$$;
