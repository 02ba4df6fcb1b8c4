// One signed POST to a webhook endpoint, through the same SSRF guard as the title fetcher
// (public-address-guard.ts): public addresses only, checked after DNS with the socket pinned to the
// checked address, and checked again on every attempt, so a host that later resolves to a private
// address (DNS rebinding) is refused then. Redirects are not followed (a 3xx is a failed attempt):
// there is no second hop to check. Time and the bytes read back are bounded.
import { Agent, fetch } from "undici";
import { OutboundRefused, type PublicAddressGuard } from "../public-address-guard.ts";

export interface SendResult {
  ok: boolean;
  status: number | null;
  latencyMs: number;
  /** A short reason without a status (refused, timeout, connection error); never the URL. */
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
      return done({ ok, status: res.status, error: ok ? null : `HTTP ${res.status}` });
    } catch (err) {
      return done({ ok: false, status: null, error: reasonOf(err) });
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

function reasonOf(err: unknown): string {
  const cause = (err as { cause?: unknown }).cause;
  const refused = err instanceof OutboundRefused ? err : cause instanceof OutboundRefused ? cause : null;
  if (refused) return `refused: ${refused.message}`;
  const name = (err as { name?: string }).name;
  if (name === "TimeoutError" || name === "AbortError") return "timeout";
  const code = (cause as { code?: string } | undefined)?.code ?? (err as { code?: string }).code;
  return code ? `connection failed (${code})` : "connection failed";
}
