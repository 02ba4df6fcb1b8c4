// A real OpenID Connect provider for single sign-on tests (panva's oidc-provider, in the test's own
// process on a free port of 127.0.0.1). Its login needs no form: the next person to sign in is named
// by the test (`signInAs`), and consent is implied for its clients. `forgeNextNonce` makes the next
// sign-in come back with an ID token whose nonce is not the one asked for, as a provider in an
// attacker's hands (or a replayed answer) would.
import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Configuration, type KoaContextWithOIDC } from "oidc-provider";

export interface IdpUser {
  email: string;
  email_verified: boolean;
}

export interface IdpClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export interface TestIdp {
  /** `http://127.0.0.1:<port>`: the issuer, and where discovery is served. */
  readonly issuer: string;
  readonly host: string;
  /** Registers a client (rebuilds the provider: register before any sign-in starts). */
  addClient(client: IdpClient): void;
  /** The person the next sign-in logs in as (their `sub`), created or replaced with these claims. */
  signInAs(sub: string, user: IdpUser): void;
  forgeNextNonce(): void;
  stop(): Promise<void>;
}

const COOKIE_KEYS = ["kurz-test-idp-cookie-key-0123456789"];

export async function startTestIdp(): Promise<TestIdp> {
  const users = new Map<string, IdpUser>();
  const clients: IdpClient[] = [];
  let next: string | null = null;
  let forgeNonce = false;
  let provider: Provider | null = null;
  // One signing key for the provider's whole life: rebuilding it for a new client keeps tokens valid.
  const jwk = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  function build(): Provider {
    const config: Configuration = {
      clients: clients.map((c) => ({
        client_id: c.clientId,
        client_secret: c.clientSecret,
        redirect_uris: [c.redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      })),
      cookies: { keys: COOKIE_KEYS },
      jwks: { keys: [{ ...jwk, kid: "test-idp", use: "sig", alg: "RS256" } as never] },
      claims: { openid: ["sub"], email: ["email", "email_verified"] },
      features: { devInteractions: { enabled: false } },
      pkce: { required: () => true },
      ttl: {
        Interaction: 600,
        Grant: 600,
        Session: 600,
        AccessToken: 600,
        IdToken: 600,
        AuthorizationCode: 60,
      },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      findAccount: (_ctx, sub) => {
        const user = users.get(sub);
        return user ? { accountId: sub, claims: () => ({ sub, ...user }) } : undefined;
      },
      // Kurz is a first-party client here: the person's consent is implied.
      loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
        const { client, session } = ctx.oidc;
        if (!client || !session?.accountId) return undefined;
        const grant = new ctx.oidc.provider.Grant({
          clientId: client.clientId,
          accountId: session.accountId,
        });
        grant.addOIDCScope("openid email");
        await grant.save();
        return grant;
      },
    };
    return new Provider(issuer, config);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!provider) throw new Error("test IdP: no client registered");
    const interaction = /^\/interaction\/([^/?]+)/.exec(req.url ?? "");
    if (!interaction) {
      provider.callback()(req, res);
      return;
    }
    const details = await provider.interactionDetails(req, res);
    if (forgeNonce) {
      forgeNonce = false;
      details.params.nonce = "forged-nonce";
      await details.save(Math.max(1, (details.exp ?? 0) - Math.floor(Date.now() / 1000)));
    }
    if (next === null) throw new Error("test IdP: nobody to sign in (call signInAs)");
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: next } },
      { mergeWithLastSubmission: false },
    );
  }

  return {
    issuer,
    host: "127.0.0.1",
    addClient(client) {
      clients.push(client);
      provider = build();
    },
    signInAs(sub, user) {
      users.set(sub, user);
      next = sub;
    },
    forgeNextNonce() {
      forgeNonce = true;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
