// A database's schema as Postgres itself describes it, for tests that compare two databases: two that
// print the same were built to the same schema, whatever the SQL that built them looked like.
import type pg from "pg";

// The schema's own functions (not an extension's, such as pg_trgm's) and the triggers people wrote
// (not the internal ones behind foreign keys).
export const OWN_FUNCTIONS = `
  SELECT p.oid, p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS key
  FROM pg_proc p
  WHERE p.pronamespace = current_schema()::regnamespace
    AND NOT EXISTS (SELECT 1 FROM pg_depend d
                    WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')`;
export const OWN_TRIGGERS = `
  SELECT t.oid, t.tgname, c.relname, 'trigger ' || t.tgname || ' on ' || c.relname AS key
  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
  WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal`;

/** `name(identity arguments)` or `trigger name on table` → Postgres's own text of the object. */
export type RoutineCatalog = Record<string, string>;

export async function routineCatalog(client: pg.Client): Promise<RoutineCatalog> {
  const { rows } = await client.query<{ key: string; def: string }>(`
    SELECT key, pg_get_functiondef(oid) AS def FROM (${OWN_FUNCTIONS}) f
    UNION ALL
    SELECT key, pg_get_triggerdef(oid) AS def FROM (${OWN_TRIGGERS}) t
    ORDER BY key`);
  return Object.fromEntries(rows.map((row) => [row.key, row.def]));
}

// Columns by their order in the table (not attnum, which keeps a dropped column's number).
const SECTIONS = {
  extensions: "SELECT extname AS line FROM pg_extension ORDER BY 1",
  sequences: `SELECT format('%s %s start %s by %s min %s max %s cycle %s', sequencename, data_type,
      start_value, increment_by, min_value, max_value, cycle) AS line
    FROM pg_sequences WHERE schemaname = current_schema() ORDER BY 1`,
  columns: `SELECT format('%s.%s #%s %s%s default %s', c.relname, a.attname,
      row_number() OVER (PARTITION BY c.oid ORDER BY a.attnum), format_type(a.atttypid, a.atttypmod),
      CASE WHEN a.attnotnull THEN ' not null' ELSE '' END, pg_get_expr(d.adbin, d.adrelid)) AS line
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm')
      AND a.attnum > 0 AND NOT a.attisdropped
    ORDER BY c.relname, a.attnum`,
  constraints: `SELECT format('%s %s %s', c.relname, k.conname, pg_get_constraintdef(k.oid)) AS line
    FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
    WHERE c.relnamespace = current_schema()::regnamespace ORDER BY 1`,
  indexes: "SELECT indexdef AS line FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1",
} as const;

export type SchemaCatalog = Record<keyof typeof SECTIONS | "routines", unknown>;

/** Tables, columns, indexes, constraints, sequences, extensions, functions with bodies, triggers. */
export async function schemaCatalog(client: pg.Client): Promise<SchemaCatalog> {
  const catalog: Partial<SchemaCatalog> = {};
  for (const [section, sql] of Object.entries(SECTIONS)) {
    const { rows } = await client.query<{ line: string }>(sql);
    catalog[section as keyof typeof SECTIONS] = rows.map((row) => row.line);
  }
  catalog.routines = await routineCatalog(client);
  return catalog as SchemaCatalog;
}
