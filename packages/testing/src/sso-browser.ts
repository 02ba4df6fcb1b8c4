// A browser reduced to what a single sign-on round trip needs: cookies per host (paths ignored) and
// redirects followed one at a time, so a test can stop at any step, change what it carries (a state,
// a cookie) and send it on. Requests go out with fetch, `redirect: "manual"`.

export interface Step {
  url: string;
  status: number;
  location: string | null;
  setCookies: string[];
  text: string;
}

export class SsoBrowser {
  /** host → cookie name → value */
  readonly cookies = new Map<string, Map<string, string>>();

  jar(host: string): Map<string, string> {
    let jar = this.cookies.get(host);
    if (!jar) {
      jar = new Map();
      this.cookies.set(host, jar);
    }
    return jar;
  }

  /** One GET, no redirect followed; cookies stored (an expired one removed). */
  async get(url: string, headers: Record<string, string> = {}): Promise<Step> {
    const target = new URL(url);
    const jar = this.jar(target.host);
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await fetch(url, {
      redirect: "manual",
      headers: { accept: "text/html", ...(cookie ? { cookie } : {}), ...headers },
    });
    const setCookies = res.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === "" || attrs.some((a) => /^\s*max-age=0\s*$/i.test(a))) jar.delete(name);
      else jar.set(name, value);
    }
    const location = res.headers.get("location");
    return {
      url,
      status: res.status,
      location: location === null ? null : new URL(location, url).href,
      setCookies,
      text: await res.text(),
    };
  }

  /** Follows redirects from `url` until `stop(next)` says the next URL is not to be fetched, or none is left. */
  async follow(url: string, stop: (next: string) => boolean = () => false, max = 20): Promise<Step> {
    let step = await this.get(url);
    for (let i = 0; i < max && step.location !== null && !stop(step.location); i++) {
      step = await this.get(step.location);
    }
    return step;
  }
}

/** Where a sign-in's provider sends the browser back to Kurz: the callback URL, not yet fetched. */
export async function throughProvider(
  browser: SsoBrowser,
  origin: string,
  startPath: string,
): Promise<string> {
  const isCallback = (next: string) => next.startsWith(`${origin}/api/v1/auth/oidc/callback`);
  const last = await browser.follow(`${origin}${startPath}`, isCallback);
  if (last.location === null || !isCallback(last.location)) {
    throw new Error(
      `sign-in did not come back to Kurz: ${last.status} ${last.url} ${last.text.slice(0, 300)}`,
    );
  }
  return last.location;
}
