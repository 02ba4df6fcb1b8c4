import { describe, expect, it } from "vitest";
import { publicAttemptError } from "./attempt-error.ts";

describe("publicAttemptError", () => {
  it("shows categories and statuses as stored", () => {
    for (const e of [null, "timeout", "refused", "connection", "TLS", "DNS", "cannot sign", "HTTP 500"]) {
      expect(publicAttemptError(e)).toBe(e);
    }
  });

  it("shows an older row's raw reason as its category", () => {
    expect(publicAttemptError("connection failed (ERR_TLS_CERT_ALTNAME_INVALID)")).toBe("TLS");
    expect(publicAttemptError("connection failed (DEPTH_ZERO_SELF_SIGNED_CERT)")).toBe("TLS");
    expect(publicAttemptError("connection failed (ECONNREFUSED)")).toBe("refused");
    expect(publicAttemptError("connection failed (ECONNRESET)")).toBe("connection");
    expect(publicAttemptError("connection failed (ENOTFOUND)")).toBe("DNS");
    expect(publicAttemptError("connection failed (UND_ERR_CONNECT_TIMEOUT)")).toBe("timeout");
    expect(publicAttemptError("connection failed")).toBe("connection");
    expect(publicAttemptError("refused: vm resolves to a non-public address")).toBe("DNS");
    expect(publicAttemptError("cannot sign: secret unreadable")).toBe("cannot sign");
  });
});
