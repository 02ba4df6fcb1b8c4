// The in-process cache of rendered QR images: repeats are served without rendering again.
import { QrQuery } from "@kurz/contracts";
import { describe, expect, it } from "vitest";
import { QrRenderer } from "../src/links/qr-renderer.ts";

describe("QrRenderer", () => {
  const params = QrQuery.parse({});

  it("renders once per distinct image and serves repeats from the cache", async () => {
    const renderer = new QrRenderer(1024 * 1024);
    const first = await renderer.render("http://127.0.0.1:8080/abc", params);
    // The same object back: nothing was rendered the second time.
    expect(await renderer.render("http://127.0.0.1:8080/abc", params)).toBe(first);
    // Equal colours written differently normalise to one entry.
    const same = await renderer.render("http://127.0.0.1:8080/abc", QrQuery.parse({ color: "1a1410" }));
    expect(same).toBe(first);
    // Every parameter and the URL are part of the key.
    const others = await Promise.all([
      renderer.render("http://127.0.0.1:8080/abd", params),
      renderer.render("http://127.0.0.1:8080/abc", QrQuery.parse({ size: "401" })),
      renderer.render("http://127.0.0.1:8080/abc", QrQuery.parse({ ec: "H" })),
      renderer.render("http://127.0.0.1:8080/abc", QrQuery.parse({ margin: "1" })),
      renderer.render("http://127.0.0.1:8080/abc", QrQuery.parse({ bg: "transparent" })),
      renderer.render("http://127.0.0.1:8080/abc", QrQuery.parse({ format: "svg" })),
    ]);
    for (const image of others) expect(image).not.toBe(first);
  });

  it("shares one render between concurrent requests for the same image", async () => {
    const renderer = new QrRenderer(1024 * 1024);
    const [a, b] = await Promise.all([
      renderer.render("http://127.0.0.1:8080/xyz", params),
      renderer.render("http://127.0.0.1:8080/xyz", params),
    ]);
    expect(a).toBe(b);
  });

  it("stays within its byte budget by evicting the least recently used images", async () => {
    const first = await new QrRenderer(1024 * 1024).render("http://127.0.0.1:8080/0", params);
    // Room for about two images: the oldest of three is rendered again (a new object).
    const renderer = new QrRenderer(first.body.length * 2 + 200);
    const a = await renderer.render("http://127.0.0.1:8080/0", params);
    await renderer.render("http://127.0.0.1:8080/1", params);
    await renderer.render("http://127.0.0.1:8080/2", params);
    expect(await renderer.render("http://127.0.0.1:8080/0", params)).not.toBe(a);
  });
});
