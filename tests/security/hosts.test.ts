// Attacks on which host serves what (docs/security.md "Hosts"): the API, the docs page, the dashboard
// and every account's campaign pages exist only on the origin's own hosts (PUBLIC_BASE_URL's and
// PUBLIC_HOSTS'); a verified branded domain serves only its owner's links, rotators and campaign pages;
// any other host gets the plain 404 page. And public campaign pages cannot be listed by counting.
//
// The attacker (A) has a public campaign and wants it shown under the victim's (B's) verified domain,
// or under any name it points at the platform's address; the stack is reached on 127.0.0.1 with Host
// headers sent byte for byte by raw(). Proof of control is a TXT record served by a real DNS server on
// loopback (dnsmasq), as in domains.test.ts.
import { waitFor } from "@kurz/testing";
import { useTestDnsServer } from "@kurz/testing/use-stack";
import { beforeAll, describe, expect, it } from "vitest";
import { bearer, type RawResponse, raw, useAttackerAndVictim, useAttackStack } from "./attack.ts";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const unique = `${process.pid}${Date.now().toString(36)}`;
/** A name the attacker points at the platform's address: no account's domain. */
const PHISH = `phish-${unique}.example`;
/** The victim's verified branded domain. */
const BANK = `go.bank-${unique}.test`;

const dns = useTestDnsServer();
const bed = useAttackStack(() => ({ DNS_SERVERS: dns().address }), { inProcess: true });
const ctx = useAttackerAndVictim(bed, "hosts");
interface CampaignAnswer {
  id: number;
  domain: string;
  public: boolean;
  list: string;
}
let attackerCampaign: CampaignAnswer;
let victimCampaign: CampaignAnswer;

const onHost = (host: string, path: string, headers: Record<string, string> = {}) =>
  raw(bed.stack.origin, "GET", path, { headers: { host, "user-agent": BROWSER, ...headers } });

/** The redirect's plain 404 page: nothing of the API, the docs, the dashboard or any campaign. */
function expectNotFoundPage(res: RawResponse, what: string) {
  expect(res.status, `${what}: ${res.text.slice(0, 200)}`).toBe(404);
  expect(String(res.headers["content-type"]), what).toMatch(/^text\/html/);
  expect(res.text, what).toContain("Link not found");
  expect(res.headers.location, what).toBeUndefined();
}

async function publicCampaign(as: typeof ctx.asAttacker, name: string): Promise<CampaignAnswer> {
  const link = await as("POST", "/api/v1/links", {
    url: `https://example.com/${name}`,
    title: `${name} link`,
  });
  expect(link.status, link.text).toBe(201);
  const made = await as("POST", "/api/campaign/add", { name, public: true });
  expect(made.status, made.text).toBe(200);
  const assigned = await as("POST", `/api/campaign/${made.body.id}/assign/${link.body.data.id}`);
  expect(assigned.status, assigned.text).toBe(200);
  return made.body as CampaignAnswer;
}

/** The path of a campaign's public page, from the `list` URL the API gave. */
const pagePath = (campaign: CampaignAnswer) => new URL(campaign.list).pathname;

beforeAll(async () => {
  attackerCampaign = await publicCampaign(ctx.asAttacker, `Attacker campaign ${unique}`);
  victimCampaign = await publicCampaign(ctx.asVictim, `Bank campaign ${unique}`);

  const added = await ctx.asVictim("POST", "/api/domain/add", {
    domain: `https://${BANK}`,
    redirect404: "https://bank.example/missing",
  });
  expect(added.status, added.text).toBe(200);
  await dns().setTxt(added.body.verification.name, [added.body.verification.value]);
  const verified = await ctx.asVictim("POST", `/api/domain/${added.body.id}/verify`);
  expect(verified.body, verified.text).toMatchObject({ error: 0, status: "verified" });
  await waitFor(
    async () => (await onHost(BANK, "/no-such-code")).headers.location === "https://bank.example/missing",
    { timeoutMs: 10_000, description: "the verified domain serving" },
  );
  // A stack, two accounts with a campaign each and a verified domain: more than most files' set-up.
}, 240_000);

describe("the origin's own pages on a host that is not the origin's", () => {
  it("the docs page, the OpenAPI document, both APIs and the dashboard are the plain 404 page", async () => {
    const key = bearer(ctx.attacker.api_key);
    const cases: Array<[string, Record<string, string>]> = [
      ["/docs", {}],
      ["/api/v1/openapi.json", {}],
      ["/api/v1/links", key],
      ["/api/v1/account", key],
      ["/api/account", key],
      ["/api", {}],
      ["/", {}],
      ["/login", {}],
      ["/dashboard", {}],
      ["/dashboard/links", {}],
    ];
    for (const [path, headers] of cases) {
      expectNotFoundPage(await onHost(PHISH, path, headers), `${PHISH}${path}`);
      // Spellings of the same foreign name are the same foreign name.
      expectNotFoundPage(await onHost(`${PHISH.toUpperCase()}.:8080`, path, headers), `${PHISH}. ${path}`);
    }
  });

  it("a sign-in or sign-up posted to a foreign host reaches nothing", async () => {
    const post = (host: string, path: string, body: object) =>
      raw(bed.stack.origin, "POST", path, {
        headers: { host, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const signin = { email: ctx.attacker.email, password: "not the password at all" };
    // The control: on the origin the API answers the wrong password itself.
    const own = await post(new URL(bed.stack.origin).host, "/api/v1/auth/login", signin);
    expect(own.status, own.text).toBe(401);
    expect(own.body.success).toBe(false);
    for (const [path, body] of [
      ["/api/v1/auth/login", signin],
      [
        "/api/v1/auth/register",
        { email: `phished-${unique}@example.com`, password: "a long pass phrase 42" },
      ],
    ] as const) {
      const res = await post(PHISH, path, body);
      expect(res.status, res.text).toBe(404);
      expect(String(res.headers["content-type"])).toMatch(/^text\/html/);
      expect(res.headers["set-cookie"]).toBeUndefined();
    }
  });

  it("no account's campaign page is served on a foreign host", async () => {
    for (const campaign of [attackerCampaign, victimCampaign]) {
      const res = await onHost(PHISH, pagePath(campaign));
      // The campaign pages' own 404, the same as for a campaign that does not exist.
      expect(res.status, res.text.slice(0, 200)).toBe(404);
      expect(res.text).not.toContain(campaign.domain);
      expect(res.text).toBe((await onHost(PHISH, `/c/${"0".repeat(32)}`)).text);
    }
  });

  it("the same pages still answer on the origin's own hosts", async () => {
    for (const host of [new URL(bed.stack.origin).host, "localhost", "127.0.0.1:1"]) {
      expect((await onHost(host, "/docs")).status, host).toBe(200);
      const page = await onHost(host, pagePath(attackerCampaign));
      expect(page.status, host).toBe(200);
      expect(page.text).toContain(attackerCampaign.domain);
    }
  });
});

describe("a verified branded domain", () => {
  it("does not serve another account's campaign page", async () => {
    const res = await onHost(BANK, pagePath(attackerCampaign));
    expect(res.status, res.text.slice(0, 200)).toBe(404);
    expect(res.text).not.toContain(attackerCampaign.domain);
    expect(res.text).not.toContain("Attacker campaign");
  });

  it("serves its owner's campaign page", async () => {
    const res = await onHost(BANK, pagePath(victimCampaign));
    expect(res.status, res.text.slice(0, 200)).toBe(200);
    expect(res.text).toContain(`<h1>${victimCampaign.domain}</h1>`);
  });

  it("serves neither the API, the docs page nor the dashboard: its unknown paths are its own", async () => {
    for (const path of ["/docs", "/api/v1/openapi.json", "/api/v1/links", "/api", "/dashboard"]) {
      const res = await onHost(BANK, path, bearer(ctx.victim.api_key));
      expect(res.headers.location, `${BANK}${path}: ${res.status}`).toBe("https://bank.example/missing");
      expect(res.text).not.toContain("openapi");
    }
  });
});

describe("public campaign pages are not enumerable", () => {
  it("counting campaign ids finds no page, and the API's list URL carries no id", async () => {
    const ids = [attackerCampaign.id, victimCampaign.id];
    const max = Math.max(...ids);
    for (let n = 1; n <= max + 2; n++) {
      const res = await onHost(new URL(bed.stack.origin).host, `/c/${n}`);
      expect(res.status, `/c/${n}`).toBe(404);
      expect(res.text).not.toContain("campaign</h1>");
    }
    for (const campaign of [attackerCampaign, victimCampaign]) {
      expect(campaign.list).toMatch(new RegExp(`^${bed.stack.origin}/c/[0-9a-f]{32}$`));
      expect(pagePath(campaign)).not.toBe(`/c/${campaign.id}`);
    }
    // The list answers keep the documented integer id beside the same URL.
    const listed = await ctx.asAttacker("GET", "/api/campaigns?limit=100");
    expect(listed.body.data.campaigns).toContainEqual(
      expect.objectContaining({ id: attackerCampaign.id, list: attackerCampaign.list }),
    );
  });
});
