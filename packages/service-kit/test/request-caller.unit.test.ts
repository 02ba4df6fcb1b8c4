// The request's caller (request-caller.ts): kept only once a service asks for it, for the handler and
// everything it awaits, and never leaking into another request.
import { describe, expect, it } from "vitest";
import { requestCaller, trackRequestCallers, withRequestCaller } from "../src/request-caller.ts";

describe("requestCaller", () => {
  it("is undefined until a service tracks callers, then follows each request through its awaits", async () => {
    expect(
      await withRequestCaller({ accountId: "a", keyId: "k" }, async () => requestCaller()),
    ).toBeUndefined();
    trackRequestCallers();
    const seen = await Promise.all(
      ["a", "b"].map((accountId) =>
        withRequestCaller({ accountId, keyId: null }, async () => {
          await new Promise((r) => setTimeout(r, 5));
          return requestCaller()?.accountId;
        }),
      ),
    );
    expect(seen).toEqual(["a", "b"]);
    expect(await withRequestCaller(undefined, async () => requestCaller())).toEqual({
      accountId: null,
      keyId: null,
    });
    expect(requestCaller()).toBeUndefined();
  });
});
