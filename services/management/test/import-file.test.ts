// Each documented source format (docs/import-export.md) read from its sample file into the rows the
// importer creates links from.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ImportFileError, readImportFile } from "../src/imports/import-file.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dirname, "fixtures/imports", name));

describe("import files", () => {
  it("reads Kurz CSV whatever the header case, order or extra columns", () => {
    expect(readImportFile(fixture("kurz.csv"), "auto")).toEqual({
      format: "csv",
      rows: [
        {
          row: 1,
          url: "https://example.com/docs",
          alias: "docs-home",
          title: "Documentation",
          expires_at: "2031-01-01T00:00:00Z",
        },
        { row: 2, url: "https://example.com/pricing", title: "Pricing" },
        { row: 3, url: "https://example.com/secret", alias: "secret-page", password: "hunter2hunter2" },
      ],
    });
    expect(readImportFile(fixture("kurz-reordered.csv"), "csv").rows).toEqual([
      { row: 1, url: "https://example.org/a", alias: "org-a", title: "Quoted, title" },
    ]);
  });

  it("reads Bitly's CSV export, taking the back-half of the bitlink as the alias", () => {
    expect(readImportFile(fixture("bitly.csv"), "auto")).toEqual({
      format: "bitly",
      rows: [
        {
          row: 1,
          url: "https://shop.example.com/spring?utm_source=bitly",
          alias: "spring-26",
          title: "Spring launch",
        },
        { row: 2, url: "https://blog.example.com/post/1", alias: "3xYzAbc" },
      ],
    });
  });

  it("reads Shlink's API listing (JSON) and its web client's CSV", () => {
    const expected = [
      {
        row: 1,
        url: "https://example.com/one",
        alias: "abc123",
        title: "Page one",
        expires_at: "2030-06-01T00:00:00+00:00",
      },
      { row: 2, url: "https://example.com/two", alias: "xyz789" },
    ];
    expect(readImportFile(fixture("shlink.json"), "auto")).toEqual({ format: "shlink", rows: expected });
    expect(readImportFile(fixture("shlink.csv"), "auto")).toEqual({
      format: "shlink",
      rows: expected.map(({ expires_at: _, ...row }) => row),
    });
  });

  it("reads Kutt's links listing", () => {
    expect(readImportFile(fixture("kutt.json"), "auto")).toEqual({
      format: "kutt",
      rows: [
        {
          row: 1,
          url: "https://example.net/first",
          alias: "kutt-one",
          title: "First Kutt link",
          expires_at: "2032-01-01T00:00:00.000Z",
        },
        { row: 2, url: "https://example.net/second", alias: "kutt-two" },
      ],
    });
  });

  it("reads YOURLS' stats listing (JSON) and its table as CSV", () => {
    const expected = [
      { row: 1, url: "https://example.com/yourls-one", alias: "ozh", title: "YOURLS one" },
      { row: 2, url: "https://example.com/yourls-two", alias: "yo2" },
    ];
    expect(readImportFile(fixture("yourls.json"), "auto")).toEqual({ format: "yourls", rows: expected });
    expect(readImportFile(fixture("yourls.csv"), "auto")).toEqual({ format: "yourls", rows: expected });
  });

  it("removes the quote an export put before a formula-like cell", () => {
    const file = Buffer.from("url,title\nhttps://example.com,'=SUM(A1)\n");
    expect(readImportFile(file, "csv").rows[0]?.title).toBe("=SUM(A1)");
  });

  it.each([
    ["binary", Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00])],
    ["broken JSON", Buffer.from('{"shortUrls": {"data": [')],
    ["unterminated quote", Buffer.from('url,title\nhttps://example.com,"never closed\n')],
    ["no URL column", Buffer.from("name,clicks\nfoo,1\n")],
    ["header only", Buffer.from("url,alias\n")],
  ])("refuses a malformed file (%s) with ImportFileError", (_name, file) => {
    expect(() => readImportFile(file, "auto")).toThrow(ImportFileError);
  });
});
