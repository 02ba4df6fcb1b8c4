// Attack: choosing click ids (decision 0049). Behind the edge, the redirect takes a click's id and
// time from the edge's request header (INTERNAL_HEADERS.edgeRequest), so that a GET the edge retries on
// another instance counts once. A client that could set that header itself could fold any number of
// its clicks into one, or date them earlier. The edge replaces whatever a client sent: here Debian's
// nginx runs the edge configuration of `./kurz up --scale` (infra/local/edge-config.ts, generated from
// the compose edge's infra/edge/nginx.conf) in front of a test stack. The redirect behind it trusts
// one hop (TRUST_PROXY=true), as in both deployments; asked directly, the same forged header folds the
// clicks, which shows what the edge prevents (a redirect that is the edge itself, TRUST_PROXY=false,
// ignores the header: services/redirect/test/standalone.test.ts).
import { INTERNAL_HEADERS } from "@kurz/contracts";
import { waitFor } from "@kurz/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasNginx, startTestEdge, type TestEdge } from "../../infra/local/test-edge.ts";
import { api, raw, uniqueEmail, useAttackStack } from "./attack.ts";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const BOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

describe.skipIf(!hasNginx)("click ids chosen by a client (skipped without /usr/sbin/nginx)", () => {
  const bed = useAttackStack({}, { inProcess: true });
  let edge: TestEdge | undefined;
  let origin = "";
  let call: ReturnType<typeof api>;

  beforeAll(async () => {
    const port = (url: string) => Number(new URL(url).port);
    edge = await startTestEdge({
      gateway: [port(bed.stack.urls.gatewayInternal)],
      redirect: [port(bed.stack.urls.redirect)],
      internal: [],
    });
    origin = edge.origin;
    const account = await bed.stack.createAccount(uniqueEmail("edge-ids"));
    call = api(bed.stack, account.api_key);
  }, 120_000);

  afterAll(async () => {
    await edge?.stop();
  });

  async function link(): Promise<{ id: string; short_code: string }> {
    const res = await call("POST", "/api/v1/links", { url: "https://example.com/edge-ids" });
    expect(res.status, res.text).toBe(201);
    return res.body.data;
  }

  const totalClicks = async (id: string): Promise<number> =>
    (await call("GET", `/api/v1/analytics/${id}`)).body.data.total_clicks;
  const botClicks = async (id: string): Promise<number> =>
    (await call("GET", `/api/v1/analytics/${id}`)).body.data.bot_clicks;

  /** Well-formed, and a minute old: within the clock skew a trusted edge is allowed. */
  const forged = () => {
    const at = Date.now() - 60_000;
    return `${"5e".repeat(16)} ${Math.floor(at / 1000)}.${String(at % 1000).padStart(3, "0")}`;
  };

  const visit = (base: string, code: string, header?: string, userAgent = BROWSER) =>
    raw(base, "GET", `/${code}`, {
      headers: { "user-agent": userAgent, ...(header ? { [INTERNAL_HEADERS.edgeRequest]: header } : {}) },
    });

  it("through the edge, three visits sending one forged request id count three clicks", async () => {
    const { id, short_code } = await link();
    const value = forged();
    for (let i = 0; i < 3; i++) expect((await visit(origin, short_code, value)).status).toBe(302);
    expect(
      await waitFor(async () => ((await totalClicks(id)) >= 3 ? totalClicks(id) : undefined), {
        timeoutMs: 30_000,
      }),
    ).toBe(3);
  });

  it("asked directly, the trusting redirect folds them into one: what the edge's overwrite prevents", async () => {
    const { id, short_code } = await link();
    const value = forged();
    for (let i = 0; i < 3; i++)
      expect((await visit(bed.stack.urls.redirect, short_code, value)).status).toBe(302);
    // One plain visit after them, then a bot's: analytics records a link's clicks in the order they
    // were made, so once the bot's shows (recorded, not counted), every click before it is in the count.
    expect((await visit(bed.stack.urls.redirect, short_code)).status).toBe(302);
    expect((await visit(bed.stack.urls.redirect, short_code, undefined, BOT)).status).toBe(302);
    await waitFor(async () => (await botClicks(id)) >= 1, { timeoutMs: 30_000 });
    expect(await totalClicks(id)).toBe(2);
  });
});
