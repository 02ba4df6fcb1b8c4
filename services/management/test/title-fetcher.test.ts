// The title fetcher against real local HTTP servers: parsing, limits, redirects and the SSRF guard.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cleanTitle,
  extractTitle,
  FETCHED_TITLE_MAX_LENGTH,
  HostBudget,
  isPublicAddress,
  TitleFetcher,
  TitleFetchRefused,
} from "../src/titles/title-fetcher.ts";

describe("isPublicAddress", () => {
  it.each([
    "127.0.0.1",
    "127.255.0.9",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254", // cloud metadata
    "100.64.0.1", // CGNAT
    "100.100.100.200", // Alibaba metadata (CGNAT range)
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "198.18.0.1",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd00:ec2::254", // AWS IPv6 metadata
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "::127.0.0.1", // IPv4-compatible (deprecated)
    "64:ff9b::a00:1", // NAT64 of 10.0.0.1
    "2002:7f00:1::1", // 6to4 of 127.0.0.1
    "[::1]",
    "not-an-ip",
    "",
  ])("refuses %s", (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each([
    "93.184.216.34",
    "8.8.8.8",
    "1.1.1.1",
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",
    "[2a00:1450::1]",
  ])("accepts %s", (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });
});

describe("extractTitle", () => {
  it("reads <title>, decodes entities and collapses whitespace", () => {
    expect(extractTitle("<html><head><TITLE>\n  Caf&eacute; &amp; Bar&#33;\t &lt;3 </TITLE></head>")).toBe(
      "Café & Bar! <3",
    );
  });

  it("falls back to og:title when <title> is missing or blank", () => {
    expect(extractTitle('<head><meta property="og:title" content="Open &amp; Graph"></head>')).toBe(
      "Open & Graph",
    );
    expect(extractTitle('<head><title>  </title><meta name="og:title" content="By name"></head>')).toBe(
      "By name",
    );
  });

  it("prefers <title> over og:title and takes the first title", () => {
    expect(
      extractTitle('<meta property="og:title" content="OG"><title>First</title><title>Second</title>'),
    ).toBe("First");
  });

  it("answers null when there is no title at all", () => {
    expect(extractTitle("<html><body>hello</body></html>")).toBeNull();
  });

  it("caps the length without splitting a character and strips control characters", () => {
    const long = `${"é".repeat(FETCHED_TITLE_MAX_LENGTH - 1)}😀😀`;
    const cleaned = cleanTitle(long)!;
    expect(Array.from(cleaned)).toHaveLength(FETCHED_TITLE_MAX_LENGTH);
    expect(cleaned.endsWith("😀")).toBe(true);
    expect(cleanTitle("a\u0000b\u0007\u0085c")).toBe("a b c");
  });
});

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A local web server; routes may be added after it starts. It records every path it was asked for. */
async function pageServer(routes: Record<string, Handler>) {
  const requested: string[] = [];
  const server: Server = createServer((req, res) => {
    requested.push(req.url ?? "");
    const handler = routes[(req.url ?? "").split("?")[0]!];
    if (handler) handler(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    routes,
    url: (path: string, host = "127.0.0.1") => `http://${host}:${port}${path}`,
    requested,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const html =
  (
    body: string | Buffer,
    headers: Record<string, string> = { "content-type": "text/html; charset=utf-8" },
  ): Handler =>
  (_req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  };
const redirect =
  (to: string): Handler =>
  (_req, res) => {
    res.writeHead(302, { location: to });
    res.end();
  };

describe("TitleFetcher against a local server", () => {
  let site: Awaited<ReturnType<typeof pageServer>>;
  let fetcher: TitleFetcher; // trusts 127.0.0.1 (the allow-list), like the integration tests
  let strict: TitleFetcher; // trusts nothing
  let streamed = 0;

  beforeAll(async () => {
    site = await pageServer({
      "/plain": html("<html><head><title>Plain page</title></head><body>x</body></html>"),
      "/og": html('<html><head><meta property="og:title" content="Only OG"></head></html>'),
      "/none": html("<html><body>no title</body></html>"),
      "/json": html('{"title":"not html"}', { "content-type": "application/json" }),
      "/latin1": html(Buffer.from("<title>Cr\xe8me br\xfbl\xe9e</title>", "latin1"), {
        "content-type": "text/html; charset=iso-8859-1",
      }),
      "/meta-charset": html(
        Buffer.concat([
          Buffer.from('<meta charset="windows-1251"><title>'),
          Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]),
          Buffer.from("</title>"),
        ]),
        { "content-type": "text/html" },
      ),
      "/gzip": html(gzipSync("<title>Compressed</title>"), {
        "content-type": "text/html",
        "content-encoding": "gzip",
      }),
      "/error": (_req, res) => {
        res.writeHead(500, { "content-type": "text/html" });
        res.end("<title>Server error page</title>");
      },
      "/hang": () => {}, // never answers
      "/endless": (_req, res) => {
        // Filler without end; a title would only come after far more than the byte cap.
        res.writeHead(200, { "content-type": "text/html" });
        const chunk = Buffer.alloc(16 * 1024, " ");
        const pump = () => {
          while (!res.destroyed && res.write(chunk)) streamed += chunk.length;
          if (!res.destroyed) res.once("drain", pump);
        };
        pump();
      },
      "/r1": redirect("/r2"),
      "/r2": redirect("/r3"),
      "/r3": redirect("/plain"),
      "/r4": redirect("/r1"),
      "/to-ftp": redirect("ftp://127.0.0.1/file"),
      "/to-file": redirect("file:///etc/passwd"),
      "/secret": html("<title>Internal secret</title>"),
    });
    // Other spellings of this same loopback server, which the allow-list (127.0.0.1) does not cover.
    site.routes["/to-localhost"] = redirect(`http://localhost:${site.port}/secret`);
    site.routes["/to-ipv6-loopback"] = redirect(`http://[::1]:${site.port}/secret`);
    site.routes["/to-metadata"] = redirect("http://169.254.169.254/latest/meta-data/");
    fetcher = new TitleFetcher({ allowHosts: ["127.0.0.1"], timeoutMs: 1_000, maxBytes: 64 * 1024 });
    strict = new TitleFetcher({ timeoutMs: 1_000 });
  });

  afterAll(async () => {
    await Promise.all([fetcher?.close(), strict?.close(), site?.close()]);
  });

  it("reads the title of an HTML page", async () => {
    expect(await fetcher.fetchTitle(site.url("/plain"))).toBe("Plain page");
    expect(await fetcher.titleFor(site.url("/plain"))).toBe("Plain page");
  });

  it("uses og:title when the page has no <title>", async () => {
    expect(await fetcher.titleFor(site.url("/og"))).toBe("Only OG");
  });

  it("decodes the charset from the header or a meta tag, and gzip bodies", async () => {
    expect(await fetcher.titleFor(site.url("/latin1"))).toBe("Crème brûlée");
    expect(await fetcher.titleFor(site.url("/meta-charset"))).toBe("Привет");
    expect(await fetcher.titleFor(site.url("/gzip"))).toBe("Compressed");
  });

  it("falls back to the host name for pages without a title, non-HTML and error responses", async () => {
    for (const path of ["/none", "/json", "/error", "/missing"]) {
      expect(await fetcher.titleFor(site.url(path))).toBe("127.0.0.1");
    }
  });

  it("follows up to three redirects and gives up on the fourth", async () => {
    expect(await fetcher.titleFor(site.url("/r1"))).toBe("Plain page");
    await expect(fetcher.fetchTitle(site.url("/r4"))).rejects.toThrow(TitleFetchRefused);
    expect(await fetcher.titleFor(site.url("/r4"))).toBe("127.0.0.1");
  });

  it("gives up on a server that never answers, within its time budget", async () => {
    await expect(fetcher.fetchTitle(site.url("/hang"))).rejects.toThrow();
    expect(await fetcher.titleFor(site.url("/hang"))).toBe("127.0.0.1");
  });

  it("stops reading at the byte cap", async () => {
    streamed = 0;
    expect(await fetcher.fetchTitle(site.url("/endless"))).toBeNull();
    // The server fills socket buffers ahead of the reader, so allow for those, not for the whole stream.
    expect(streamed).toBeLessThan(64 * 1024 + 8 * 1024 * 1024);
  });

  it("refuses loopback addresses without the allow-list, before connecting", async () => {
    const before = site.requested.length;
    await expect(strict.fetchTitle(site.url("/plain"))).rejects.toThrow(TitleFetchRefused);
    // URL normalisation turns these spellings into 127.0.0.1 before the check sees them.
    await expect(strict.fetchTitle(`http://2130706433:${site.port}/plain`)).rejects.toThrow(
      TitleFetchRefused,
    );
    await expect(strict.fetchTitle(`http://0x7f.1:${site.port}/plain`)).rejects.toThrow(TitleFetchRefused);
    await expect(strict.fetchTitle(`http://[::ffff:127.0.0.1]:${site.port}/plain`)).rejects.toThrow(
      TitleFetchRefused,
    );
    expect(await strict.titleFor(site.url("/plain"))).toBe("127.0.0.1");
    expect(site.requested.length).toBe(before);
  });

  it("checks the address after DNS resolution: a name for loopback is refused", async () => {
    const before = site.requested.length;
    await expect(strict.fetchTitle(site.url("/plain", "localhost"))).rejects.toThrow(TitleFetchRefused);
    expect(site.requested.length).toBe(before);
  });

  it("checks every redirect hop", async () => {
    for (const path of ["/to-localhost", "/to-ipv6-loopback", "/to-metadata", "/to-ftp", "/to-file"]) {
      await expect(fetcher.fetchTitle(site.url(path)), path).rejects.toThrow(TitleFetchRefused);
    }
    expect(site.requested).not.toContain("/secret");
  });

  it("never fetches when disabled", async () => {
    const off = new TitleFetcher({ enabled: false, allowHosts: ["127.0.0.1"] });
    const before = site.requested.length;
    expect(await off.titleFor(site.url("/plain"))).toBe("127.0.0.1");
    expect(site.requested.length).toBe(before);
    await off.close();
  });
});

describe("per-host budget", () => {
  it("counts fetches per host in clock minutes", () => {
    const budget = new HostBudget(1, 2);
    const t = Date.UTC(2026, 0, 1, 12, 0, 10);
    expect([budget.take("a.test", t), budget.take("a.test", t), budget.take("a.test", t)]).toEqual([
      true,
      true,
      false,
    ]);
    expect(budget.take("b.test", t)).toBe(true);
    expect(budget.take("a.test", t + 49_000)).toBe(false);
    expect(budget.take("a.test", t + 50_000)).toBe(true); // the next minute
  });

  it("fetches a host a few at a time and a number per minute; the rest get the host name unfetched", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const site = await pageServer({
      "/slow": (_req, res) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        setTimeout(() => {
          inFlight--;
          res.writeHead(200, { "content-type": "text/html" });
          res.end("<title>Slow page</title>");
        }, 100);
      },
    });
    site.routes["/to-localhost"] = redirect(site.url("/slow", "localhost"));
    const fetcher = new TitleFetcher({
      allowHosts: ["127.0.0.1", "localhost"],
      perHostConcurrency: 2,
      perHostPerMinute: 5,
    });
    try {
      const titles = await Promise.all(Array.from({ length: 8 }, () => fetcher.titleFor(site.url("/slow"))));
      expect(titles.filter((t) => t === "Slow page")).toHaveLength(5);
      expect(titles.filter((t) => t === "127.0.0.1")).toHaveLength(3);
      expect(site.requested).toHaveLength(5);
      expect(maxInFlight).toBe(2);

      // A redirect into a host whose budget is spent is refused before connecting: hops cannot launder it.
      const other = new TitleFetcher({ allowHosts: ["127.0.0.1", "localhost"], perHostPerMinute: 1 });
      try {
        expect(await other.titleFor(site.url("/none", "localhost"))).toBe("localhost"); // spends localhost's
        const before = site.requested.length;
        await expect(other.fetchTitle(site.url("/to-localhost"))).rejects.toThrow(/no title fetches left/);
        expect(site.requested.slice(before)).toEqual(["/to-localhost"]);
      } finally {
        await other.close();
      }
    } finally {
      await Promise.all([fetcher.close(), site.close()]);
    }
  });
});
