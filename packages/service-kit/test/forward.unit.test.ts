// What the shared forwarder passes on: every end-to-end header, none of the hop-by-hop ones (RFC 9110
// §7.6.1), including those the Connection header names.
import { describe, expect, it } from "vitest";
import { endToEndHeaders } from "../src/forward.ts";

describe("endToEndHeaders", () => {
  it("drops the hop-by-hop headers and keeps the rest, values untouched", () => {
    const headers = {
      host: "kurz.example",
      connection: "keep-alive",
      "keep-alive": "timeout=5",
      "proxy-connection": "keep-alive",
      te: "trailers",
      trailer: "expires",
      upgrade: "websocket",
      "transfer-encoding": "chunked",
      "set-cookie": ["a=1", "b=2"],
      "x-request-id": "abc",
    };
    expect(endToEndHeaders(headers)).toStrictEqual({
      host: "kurz.example",
      "transfer-encoding": "chunked",
      "set-cookie": ["a=1", "b=2"],
      "x-request-id": "abc",
    });
    // The input is not changed.
    expect(headers.connection).toBe("keep-alive");
  });

  it("drops the headers the Connection header names, whatever their case and spacing", () => {
    expect(
      endToEndHeaders({
        connection: "close, X-Private ,  x-other",
        "x-private": "1",
        "x-other": "2",
        "x-kept": "3",
      }),
    ).toStrictEqual({ "x-kept": "3" });
  });
});
