// Contact overlays' forms, posted by visitors to the short link itself (decision 0026). Limited in two
// budgets shared by every redirect instance, like password attempts (password-limiter.ts): per link
// and client (by a hash of its address, an IPv6 client by its /64) and per link for all clients. The
// form is validated here and again by management, which stores it; no address is sent or stored.
import { INTERNAL_HEADERS, INTERNAL_ROUTES, OverlaySubmissionBody } from "@kurz/contracts";
import { createInternalClient, type InternalClient } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { clientKey } from "./client-key.ts";
import type { OverlayState } from "./overlay-page.ts";
import { WindowCounter } from "./window-counter.ts";

export interface SubmissionLimits {
  perClient: number;
  perLink: number;
  windowSeconds: number;
}

export type SubmissionOutcome = OverlayState | { kind: "gone" } | { kind: "unavailable" };

export class OverlaySubmissions {
  private readonly counter: WindowCounter;
  private readonly management: InternalClient;

  constructor(
    redis: Redis,
    private readonly limits: SubmissionLimits,
    managementUrl: string,
    internalToken: string,
  ) {
    this.counter = new WindowCounter(redis, limits.windowSeconds);
    this.management = createInternalClient(managementUrl, { [INTERNAL_HEADERS.token]: internalToken });
  }

  async submit(code: string, ip: string | null, form: URLSearchParams): Promise<SubmissionOutcome> {
    const [client, link] = await this.counter.hit(`ovlimit:${code}:${clientKey(ip)}`, `ovlimit:${code}`);
    if (client!.count > this.limits.perClient || link!.count > this.limits.perLink)
      return { kind: "limited" };
    const raw: Record<string, string> = {};
    for (const name of ["name", "email", "phone", "message"]) {
      const value = form.get(name)?.trim();
      if (value) raw[name] = value;
    }
    const parsed = OverlaySubmissionBody.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { kind: "invalid", message: `Please check the ${String(issue?.path[0] ?? "form")} field.` };
    }
    let res: Response;
    try {
      res = await this.management.call(
        INTERNAL_ROUTES.submitOverlay,
        {},
        { body: { ...parsed.data, short_code: code }, timeoutMs: 3_000 },
      );
    } catch {
      return { kind: "unavailable" };
    }
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    if (res.status === 201) return { kind: "thanks" };
    if (res.status === 400)
      return { kind: "invalid", message: body?.error?.message ?? "Please check the form." };
    if (res.status === 404) return { kind: "gone" };
    return { kind: "unavailable" };
  }
}
