import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClickEvent } from "@kurz/contracts";
import { describe, expect, it } from "vitest";
import { LOG_LINE_MAX, logLines, parseLogLine, replayClickId } from "./replay-clicks.ts";

const LINE = {
  request_id: "0123456789abcdef0123456789abcdef",
  time: "2030-06-01T12:00:00+00:00",
  msec: "1906977600.123",
  method: "GET",
  host: "short.test",
  uri: "/Abc_1?utm_source=x",
  status: "302",
  location: "https://example.com/",
  referer: "",
  user_agent: "curl/8",
  remote_addr: "203.0.113.9",
};

describe("parseLogLine", () => {
  it("reads the snapshot's log format: the code from the path, the time to the millisecond", () => {
    expect(parseLogLine(JSON.stringify(LINE))).toEqual({
      requestId: LINE.request_id,
      ms: 1_906_977_600_123,
      method: "GET",
      host: "short.test",
      code: "Abc_1",
      status: 302,
      referer: "",
      userAgent: "curl/8",
      ip: "203.0.113.9",
    });
  });

  it("falls back to the whole-second time of a log without $msec, and decodes the path as nginx matched it", () => {
    const { msec: _, ...older } = LINE;
    const parsed = parseLogLine(JSON.stringify({ ...older, uri: "/Ab%63" }));
    expect(parsed).toMatchObject({ ms: Date.parse("2030-06-01T12:00:00Z"), code: "Abc" });
  });

  it("refuses what the format never writes", () => {
    for (const bad of [
      "not json",
      "[]",
      "null",
      JSON.stringify({ ...LINE, request_id: "x" }),
      JSON.stringify({ ...LINE, request_id: 42 }),
      JSON.stringify({ ...LINE, uri: "no-slash" }),
      JSON.stringify({ ...LINE, uri: "/%zz" }),
      JSON.stringify({ ...LINE, status: "abc" }),
      JSON.stringify({ ...LINE, msec: "", time: "yesterday" }),
    ]) {
      expect(parseLogLine(bad), bad).toBeNull();
    }
    expect(parseLogLine(JSON.stringify({ ...LINE, uri: "/a/b" }))?.code).toBeNull();
  });
});

describe("replayClickId", () => {
  it("is a version 7 UUID of the request's time, the same for the same line and workspace only", () => {
    const a = "11111111-1111-4111-8111-111111111111";
    const b = "22222222-2222-4222-8222-222222222222";
    const id = replayClickId(a, LINE.request_id, 1_906_977_600_123);
    expect(ClickEvent.shape.click_id.safeParse(id).success).toBe(true);
    expect(id.replace(/-/g, "").slice(0, 12)).toBe((1_906_977_600_123).toString(16).padStart(12, "0"));
    expect(replayClickId(a, LINE.request_id, 1_906_977_600_123)).toBe(id);
    expect(replayClickId(b, LINE.request_id, 1_906_977_600_123)).not.toBe(id);
    expect(replayClickId(a, "f".repeat(32), 1_906_977_600_123)).not.toBe(id);
  });
});

describe("logLines", () => {
  it("gives each line, a line too long as null without keeping it, and a last line without newline", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kurz-log-lines-"));
    try {
      const file = join(dir, "access.log");
      writeFileSync(file, `one\n${"x".repeat(LOG_LINE_MAX * 10)}\n\ntwo\nthree`);
      const got: (string | null)[] = [];
      for await (const line of logLines(file)) got.push(line);
      expect(got).toEqual(["one", null, "", "two", "three"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
