import { describe, expect, it } from "vitest";
import { renderPreviewPage } from "./preview-page.ts";
import { clickHeaders } from "./raw-headers.ts";
import { visitorKey } from "./smart-visit.ts";

describe("clickHeaders' Accept-Language", () => {
  it("reads the first line in any letter case, and leaves Accept-Encoding alone", () => {
    expect(
      clickHeaders(["Accept-Encoding", "gzip", "ACCEPT-LANGUAGE", "de-AT", "accept-language", "fr"])
        .acceptLanguage,
    ).toBe("de-AT");
    expect(clickHeaders(["Accept-Encoding", "gzip", "X-Forwarded-For", "203.0.113.1"])).toMatchObject({
      acceptLanguage: undefined,
      forwardedFor: "203.0.113.1",
    });
  });
});

describe("visitorKey", () => {
  it("is stable for one visitor and link, and differs by each part", () => {
    const k = visitorKey("198.51.100.7", "UA/1", "link-1");
    expect(visitorKey("198.51.100.7", "UA/1", "link-1")).toBe(k);
    expect(k).toBeGreaterThanOrEqual(0);
    expect(
      new Set([
        k,
        visitorKey("198.51.100.8", "UA/1", "link-1"),
        visitorKey("198.51.100.7", "UA/2", "link-1"),
        visitorKey("198.51.100.7", "UA/1", "link-2"),
      ]).size,
    ).toBe(4);
    // The parts are separated: moving characters between them changes the key.
    expect(visitorKey("ab", "c", "d")).not.toBe(visitorKey("a", "bc", "d"));
  });
});

describe("renderPreviewPage", () => {
  it("escapes every value and picks the Twitter card by the image", () => {
    const html = renderPreviewPage(
      { t: `"><img src=x onerror=alert(1)>` },
      "https://k.test/a?b=<c>",
      "https://d.test/?q='x'",
    );
    expect(html).not.toMatch(/<img/);
    expect(html).toContain('content="https://k.test/a?b=&lt;c&gt;"');
    expect(html).toContain("url=https://d.test/?q=&#39;x&#39;");
    expect(html).toContain('<meta name="twitter:card" content="summary">');
    expect(renderPreviewPage({ i: "https://k.test/i.png" }, "https://k.test/a", "https://d.test/")).toContain(
      "summary_large_image",
    );
  });
});
