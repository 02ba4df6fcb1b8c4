// The reference of `./kurz bench api`: what `GET /api/v1/links/:id` costs in bare Node, in one
// process. Per request it does the same work as the real path, against the same Redis and Postgres data:
// one Redis GET of the cached key record (the gateway's cache entry), one rate-limit script (EVALSHA of
// the gateway's two windows), one Postgres query by primary key with `pg` (no ORM), and the same JSON.
// No Express, no proxy hops, no logging. Started by api.ts as a child process:
//   node --import tsx infra/bench/_api-reference.ts   (env: PORT, REDIS_URL, REDIS_KEY_PREFIX,
//   DATABASE_URL, PUBLIC_BASE_URL)
import { createHash } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import { apiKeyCacheKey, RATE_LIMIT_SCRIPT, rateLimitKey, rateLimitKeyTtlSeconds } from "@kurz/contracts";
import { Redis } from "ioredis";
import pg from "pg";

const env = (name: string) => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};

const ID = /^\/api\/v1\/links\/([0-9a-f-]{36})$/;

const redis = new Redis(env("REDIS_URL"), { keyPrefix: process.env.REDIS_KEY_PREFIX ?? "" });
redis.defineCommand("rateLimit", { lua: RATE_LIMIT_SCRIPT });
const limit = redis as unknown as { rateLimit(n: number, ...a: (string | number)[]): Promise<number[]> };
const pool = new pg.Pool({ connectionString: env("DATABASE_URL"), max: 10 });
const baseUrl = env("PUBLIC_BASE_URL");

const send = (res: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
};

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const server = createServer(async (req, res) => {
  try {
    const match = ID.exec(req.url ?? "");
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "");
    if (!match || !bearer) return send(res, 404, { success: false });
    const hash = createHash("sha256").update(bearer[1]!).digest("hex");
    const cached = await redis.get(apiKeyCacheKey(hash));
    if (!cached) return send(res, 401, { success: false });
    const key = JSON.parse(cached) as {
      key_id: string;
      account_id: string;
      rate_limit_per_minute: number;
      rate_limit_per_hour: number;
    };
    const nowSec = Math.floor(Date.now() / 1000);
    const windows = [
      { name: "1m", seconds: 60, limit: key.rate_limit_per_minute },
      { name: "1h", seconds: 3600, limit: key.rate_limit_per_hour },
    ];
    const counts = await limit.rateLimit(
      2,
      ...windows.map((w) => rateLimitKey(`v1:${key.key_id}`, w, nowSec)),
      ...windows.map((w) => rateLimitKeyTtlSeconds(w)),
    );
    if (windows.some((w, i) => counts[i]! > w.limit)) return send(res, 429, { success: false });
    res.setHeader("x-ratelimit-remaining", String(windows[0]!.limit - counts[0]!));
    const { rows } = await pool.query({
      name: "link-by-id",
      text: "SELECT * FROM links WHERE id = $1::uuid AND account_id = $2::uuid",
      values: [match[1], key.account_id],
    });
    const link = rows[0];
    if (!link) return send(res, 404, { success: false });
    send(res, 200, {
      success: true,
      data: {
        id: link.id,
        short_code: link.short_code,
        short_url: `${baseUrl}/${link.short_code}`,
        original_url: link.original_url,
        title: link.title,
        is_active: link.is_active,
        has_password: link.password_hash !== null,
        expires_at: iso(link.expires_at),
        clicks_count: Number(link.clicks_count),
        analytics_public: link.analytics_public,
        created_at: iso(link.created_at),
        updated_at: iso(link.updated_at),
        analytics_shared_fields: link.analytics_shared_fields,
      },
    });
  } catch {
    if (!res.headersSent) send(res, 503, { success: false });
  }
});
server.keepAliveTimeout = 60_000;
server.listen(Number(env("PORT")), "127.0.0.1");
process.on("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  redis.disconnect();
  void pool.end().then(() => process.exit(0));
});
