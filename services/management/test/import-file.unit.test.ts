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

  it("reads Kutt's links listing, marking a protected link whose password Kutt does not export", () => {
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
        { row: 2, url: "https://example.net/second", alias: "kutt-two", passwordWithheld: true },
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

  // The rows fixtures/imports/yourls-dump/yourls-dump.sql inserted, as the JS strings they hold.
  const inserted: { alias: string; url: string; title?: string }[] = [
    { alias: "1", url: "https://example.com/", title: "Plain title" },
    { alias: "a", url: "https://example.com/q?x=1&y=2", title: 'Say "hello", world' },
    { alias: "tab", url: "https://example.com/t", title: "before\tafter" },
    { alias: "nl", url: "https://example.com/n", title: "line one\nline two" },
    { alias: "win", url: "https://example.com/w", title: "C:\\Users\\ozh\\file.txt" },
    { alias: "uni", url: "https://münchen.de/straße?q=ü", title: "Grüße — 日本語 🎉" },
    { alias: "nul", url: "https://example.com/none" },
    { alias: "pct", url: "https://example.com/search?q=100%25&r=a%2Fb", title: "100% sure, 50%off" },
    { alias: "q", url: 'https://example.com/json?q={"a":1}', title: '"quoted" at start' },
    { alias: "bs", url: "https://example.com/e", title: "ends with backslash\\" },
    { alias: "NULL", url: "https://example.com/n2", title: "\\N and \\t literally" },
    { alias: "crlf", url: "https://example.com/c", title: "carriage\r\nreturn, comma" },
    // A database dump never neutralises formulas, so its leading quote is the title's own.
    { alias: "f", url: "https://example.com/f", title: "'=1+1 starts like a formula" },
  ];
  const byAlias = (a: { alias?: string }, b: { alias?: string }) =>
    (a.alias ?? "") < (b.alias ?? "") ? -1 : 1;

  it.each([
    ["mariadb --batch", "batch.tsv"],
    ["INTO OUTFILE … FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"'", "outfile.csv"],
    ["INTO OUTFILE (tab-separated)", "outfile.tsv"],
  ])("reads YOURLS' table dumped by %s with every field as inserted", (_how, name) => {
    const { format, rows } = readImportFile(fixture(`yourls-dump/${name}`), "auto");
    expect(format).toBe("yourls");
    expect(rows.map(({ row: _, ...rest }) => rest).sort(byAlias)).toEqual([...inserted].sort(byAlias));
    expect(rows.map((r) => r.row)).toEqual(inserted.map((_, i) => i + 1));
    // Named explicitly the file reads the same.
    expect(readImportFile(fixture(`yourls-dump/${name}`), "yourls").rows).toEqual(rows);
  });

  it("reads a --batch dump whose lines a Windows editor ended with CR LF", () => {
    const crlf = Buffer.from(fixture("yourls-dump/batch.tsv").toString("utf8").replace(/\n/g, "\r\n"));
    const rows = readImportFile(crlf, "auto").rows.map(({ row: _, ...rest }) => rest);
    expect(rows.sort(byAlias)).toEqual([...inserted].sort(byAlias));
  });

  it("keeps a backslash in an ordinary CSV (Kurz, Bitly or YOURLS with a header) as written", () => {
    const kurz = Buffer.from(
      'url,alias,title\nhttps://example.com/a,a1,C:\\Users\\N\nhttps://example.com/b,b1,"x \\"""\n',
    );
    expect(readImportFile(kurz, "auto")).toEqual({
      format: "csv",
      rows: [
        { row: 1, url: "https://example.com/a", alias: "a1", title: "C:\\Users\\N" },
        { row: 2, url: "https://example.com/b", alias: "b1", title: 'x \\"' },
      ],
    });
    const bitly = Buffer.from("long_url,link,title\nhttps://example.com/c,https://bit.ly/c1,C:\\Users\n");
    expect(readImportFile(bitly, "auto").rows).toEqual([
      { row: 1, url: "https://example.com/c", alias: "c1", title: "C:\\Users" },
    ]);
    const yourlsCsv = Buffer.from("keyword,url,title\nw,https://example.com/w,C:\\Users\n");
    expect(readImportFile(yourlsCsv, "auto").rows).toEqual([
      { row: 1, url: "https://example.com/w", alias: "w", title: "C:\\Users" },
    ]);
  });

  it("reads Kutt's pages saved one after another in one file, or as a JSON array of pages", () => {
    // Kutt answers at most 50 links a page; a whole export is every page, saved as Kutt sent them.
    const pages = ["page-1.json", "page-2.json", "page-3.json"].map((n) => fixture(`kutt-v3/${n}`));
    const docs = pages.map((p) => JSON.parse(p.toString()));
    const codes = docs.flatMap((d) => d.data.map((l: { address: string }) => l.address));
    expect(codes).toHaveLength(docs[0].total);

    const concatenated = readImportFile(Buffer.concat(pages), "auto");
    expect(concatenated.format).toBe("kutt");
    expect(concatenated.rows.map((r) => r.alias)).toEqual(codes);
    expect(concatenated.rows.at(-1)?.row).toBe(codes.length);
    const withNewlines = readImportFile(Buffer.from(pages.join("\n")), "kutt");
    expect(withNewlines.rows).toEqual(concatenated.rows);
    const asArray = readImportFile(Buffer.from(JSON.stringify(docs, null, 2)), "auto");
    expect(asArray).toEqual(concatenated);

    const broken = Buffer.concat([pages[0]!, Buffer.from('{"data": [}')]);
    expect(() => readImportFile(broken, "auto")).toThrow(ImportFileError);
    expect(() => readImportFile(Buffer.from("{} oops"), "auto")).toThrow(/not valid JSON/);
  });

  it("reads YOURLS' stats saved page by page (limit and start) in one file", () => {
    const whole = readImportFile(fixture("yourls-api/stats-limit-1000.json"), "auto");
    const pages = [0, 50, 100].map((start) => fixture(`yourls-api/stats-limit-50-start-${start}.json`));
    const paged = readImportFile(Buffer.concat(pages), "auto");
    expect(paged.format).toBe("yourls");
    expect(paged.rows).toEqual(whole.rows);
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
