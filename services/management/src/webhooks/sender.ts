// One signed POST to a webhook endpoint, through the same SSRF guard as the title fetcher
// (public-address-guard.ts): public addresses only, checked after DNS with the socket pinned to the
// checked address, and checked again on every attempt, so a host that later resolves to a private
// address (DNS rebinding) is refused then. Redirects are not followed (a 3xx is a failed attempt):
// there is no second hop to check. Time and the bytes read back are bounded.
import { Agent, fetch } from "undici";
import type { PublicAddressGuard } from "../security/public-address-guard.ts";
import { categoryOfError, httpStatusError } from "./attempt-error.ts";

export interface SendResult {
  ok: boolean;
  status: number | null;
  latencyMs: number;
  /** The failure's category (attempt-error.ts), `HTTP <status>` for a non-2xx; never a raw code or the URL. */
  error: string | null;
}

export interface WebhookSenderOptions {
  guard: PublicAddressGuard;
  timeoutMs: number;
  /** Bytes of the answer read before the connection is dropped; the body is not used. */
  maxResponseBytes?: number;
  now?: () => number;
}

export class WebhookSender {
  private readonly agent: Agent;

  constructor(private readonly opts: WebhookSenderOptions) {
    this.agent = new Agent({
      connect: { lookup: opts.guard.lookup, timeout: opts.timeoutMs },
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      connections: 16,
    });
  }

  async send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const now = this.opts.now ?? Date.now;
    const started = now();
    const done = (r: Omit<SendResult, "latencyMs">): SendResult => ({
      ...r,
      latencyMs: Math.max(0, Math.round(now() - started)),
    });
    try {
      const target = new URL(url);
      this.opts.guard.assertUrl(target);
      const res = await fetch(target, {
        method: "POST",
        dispatcher: this.agent,
        redirect: "manual",
        signal: AbortSignal.timeout(this.opts.timeoutMs),
        headers,
        body,
      });
      await this.drain(res.body);
      const ok = res.status >= 200 && res.status < 300;
      return done({ ok, status: res.status, error: ok ? null : httpStatusError(res.status) });
    } catch (err) {
      return done({ ok: false, status: null, error: categoryOfError(err) });
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private async drain(body: ReadableStream<Uint8Array> | null): Promise<void> {
    if (!body) return;
    const max = this.opts.maxResponseBytes ?? 64 * 1024;
    const reader = body.getReader();
    let size = 0;
    try {
      while (size < max) {
        const { done, value } = await reader.read();
        if (done) return;
        size += value.length;
      }
    } catch {
      // The status is what counts; a broken body after it does not fail the attempt.
    } finally {
      await reader.cancel().catch(() => {});
    }
  }
}
