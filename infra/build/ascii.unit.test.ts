// The bundles are written ASCII-only so that V8 keeps each one's source as a one-byte string (half
// the heap of a two-byte one); the escapes must mean what the characters meant.
import { describe, expect, it } from "vitest";
import { asciiOnly } from "./bundle.ts";

describe("asciiOnly", () => {
  const code = [
    "// a comment’s apostrophe, an emoji 😀 and Latin-1 é",
    'export const s = "’😀é";',
    "export const re = /’|😀/u;",
    "export const plain = /’/;",
  ].join("\n");

  it("leaves no character above U+007F and keeps the lines", () => {
    const out = asciiOnly(code);
    expect(out).toMatch(/^[\0-\x7f]*$/);
    expect(out.split("\n")).toHaveLength(4);
  });

  it("keeps the meaning of strings and regular expressions", async () => {
    const url = `data:text/javascript,${encodeURIComponent(asciiOnly(code))}`;
    const m = (await import(/* @vite-ignore */ url)) as { s: string; re: RegExp; plain: RegExp };
    expect(m.s).toBe("’😀é");
    expect(m.re.test("😀")).toBe(true);
    expect(m.plain.test("’")).toBe(true);
  });
});
