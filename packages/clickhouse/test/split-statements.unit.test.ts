import { describe, expect, it } from "vitest";
import { splitStatements } from "../src/split-statements.ts";

describe("splitStatements", () => {
  it("splits at semicolons and drops empty and comment-only chunks", () => {
    const sql = "-- header\nCREATE TABLE a (x UInt8) ENGINE = Memory;\n\n;\nSELECT 1;\n-- trailing note\n";
    expect(splitStatements(sql)).toEqual(["-- header\nCREATE TABLE a (x UInt8) ENGINE = Memory", "SELECT 1"]);
  });

  it("keeps a last statement that has no semicolon", () => {
    expect(splitStatements("SELECT 1;\nSELECT 2\n")).toEqual(["SELECT 1", "SELECT 2"]);
  });

  it("ignores semicolons inside strings, quoted identifiers and comments", () => {
    const sql = [
      "SELECT 'a;b', 'it''s;', 'esc\\';' AS `c;d`, \"e;f\" FROM t; -- c;omment",
      "/* block; comment */ SELECT 2 # hash; comment",
      ";",
    ].join("\n");
    expect(splitStatements(sql)).toEqual([
      "SELECT 'a;b', 'it''s;', 'esc\\';' AS `c;d`, \"e;f\" FROM t",
      "-- c;omment\n/* block; comment */ SELECT 2 # hash; comment",
    ]);
  });

  it("rejects unterminated quotes and comments instead of guessing", () => {
    expect(() => splitStatements("SELECT 'open;")).toThrow(/Unterminated ' quote/);
    expect(() => splitStatements("SELECT 1 /* open;")).toThrow(/Unterminated \/\* comment/);
  });
});
