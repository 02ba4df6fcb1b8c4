// The openid-client Configuration of a provider: its discovery document read once and kept a few
// minutes (per issuer, client and secret, so a changed setting is read afresh). The server's own
// provider is trusted as the operator configured it; a workspace's is fetched only through the SSRF
// guard, over https unless SSO_ALLOW_HOSTS names its host.
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import * as oidc from "openid-client";
import { Agent, fetch as undiciFetch } from "undici";
import type { PublicAddressGuard } from "../security/public-address-guard.ts";

const CACHE_MS = 10 * 60_000;

/** Why a provider could not be used (unreachable, refused by the guard, not a provider). */
export class ProviderUnavailable extends Error {
  override name = "ProviderUnavailable";
}

export interface ProviderSetting {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export class OidcClients {
  private readonly cache = new LRUCache<string, Promise<oidc.Configuration>>({ max: 500, ttl: CACHE_MS });
  private readonly agent: Agent;

  constructor(
    private readonly guard: PublicAddressGuard,
    private readonly timeoutMs: number,
  ) {
    this.agent = new Agent({ connect: { lookup: guard.lookup, timeout: timeoutMs } });
  }

  /** The operator's provider: no guard (it may well live on the private network). */
  instance(setting: ProviderSetting): Promise<oidc.Configuration> {
    return this.cached("instance", setting, () => this.discover(setting, { guarded: false }));
  }

  /** A workspace's provider: every request through the guard. */
  workspace(setting: ProviderSetting): Promise<oidc.Configuration> {
    return this.cached("workspace", setting, () => this.discover(setting, { guarded: true }));
  }

  private cached(kind: string, s: ProviderSetting, make: () => Promise<oidc.Configuration>) {
    const key = createHash("sha256")
      .update(JSON.stringify([kind, s.issuer, s.clientId, s.clientSecret]))
      .digest("hex");
    let found = this.cache.get(key);
    if (!found) {
      found = make();
      this.cache.set(key, found);
      // A failed discovery is not kept: the next sign-in tries again.
      found.catch(() => this.cache.delete(key));
    }
    return found;
  }

  private async discover(s: ProviderSetting, { guarded }: { guarded: boolean }): Promise<oidc.Configuration> {
    let issuer: URL;
    try {
      issuer = new URL(s.issuer);
    } catch {
      throw new ProviderUnavailable("The issuer is not a URL");
    }
    const plainHttpAllowed = !guarded || this.guard.isAllowListed(issuer.hostname);
    if (issuer.protocol !== "https:" && !(issuer.protocol === "http:" && plainHttpAllowed)) {
      throw new ProviderUnavailable("The issuer must be an https URL");
    }
    const options: oidc.DiscoveryRequestOptions = {
      timeout: Math.ceil(this.timeoutMs / 1000),
      execute: issuer.protocol === "http:" ? [oidc.allowInsecureRequests] : [],
    };
    if (guarded) {
      options[oidc.customFetch] = (url, init) => {
        this.guard.assertUrl(new URL(url));
        return undiciFetch(url, { ...init, redirect: "manual", dispatcher: this.agent } as Parameters<
          typeof undiciFetch
        >[1]) as unknown as Promise<Response>;
      };
    }
    try {
      return await oidc.discovery(issuer, s.clientId, s.clientSecret, undefined, options);
    } catch (err) {
      throw new ProviderUnavailable(`The provider's discovery document could not be read: ${messageOf(err)}`);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

const messageOf = (err: unknown): string => {
  const cause = (err as { cause?: unknown }).cause;
  const base = err instanceof Error ? err.message : String(err);
  return cause instanceof Error ? `${base} (${cause.message})` : base;
};
