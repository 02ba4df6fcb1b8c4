// The routes that send e-mail on request (a password reset, an e-mail address change) must not become a
// way to flood someone's mailbox, nor tell which addresses have accounts. Each kind is budgeted per
// address and per client (MAIL_REQUESTS in management's mail-budget.ts: 3 and 20 an hour): past the
// budget the answer is 429 in the v1 envelope and no message leaves. The messages are counted where
// they arrive, at a real SMTP server started here.
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, describe, expect, it } from "vitest";
import { type Caller, expectV1Error, uniqueEmail, useSessionStack } from "./attack.ts";

const PER_ADDRESS = 3;
const PER_CLIENT = 20;

/** Recipients of every message the SMTP server accepted, in order. */
const delivered: string[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  onRcptTo(address, _session, callback) {
    delivered.push(address.address);
    callback();
  },
  onData(stream, _session, callback) {
    stream.on("end", () => callback());
    stream.resume();
  },
});
smtp.listen(0, "127.0.0.1");
await once(smtp.server, "listening");
const smtpPort = (smtp.server.address() as AddressInfo).port;
afterAll(() => new Promise<void>((done) => smtp.close(() => done())));

const { call, register } = useSessionStack(
  { SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, MAIL_FROM: "Kurz <kurz@example.test>" },
  { inProcess: true },
);

const mailsTo = (address: string) => delivered.filter((a) => a === address).length;
/** Waits until the messages sent after an answer (a reset's) have arrived, then gives the count. */
async function settledMailsTo(address: string, expected: number): Promise<number> {
  await expect.poll(() => mailsTo(address), { timeout: 10_000 }).toBeGreaterThanOrEqual(expected);
  await new Promise((r) => setTimeout(r, 300));
  return mailsTo(address);
}

describe("e-mail floods", () => {
  it("password resets for one address: the first three are sent, then 429 and nothing more; an unknown address gets the same answers", async () => {
    const victim = await register("flood-victim");
    const unknown = uniqueEmail("nobody");
    for (const email of [victim.email, unknown]) {
      for (let i = 0; i < PER_ADDRESS; i++) {
        const res = await call("POST", "/api/v1/auth/password-reset", {}, { email });
        expect(res.status, res.text).toBe(202);
      }
      const refused = await call("POST", "/api/v1/auth/password-reset", {}, { email });
      expectV1Error(refused, 429, "RATE_LIMIT_EXCEEDED");
      expect(refused.body.error.details).toMatchObject({ limit: PER_ADDRESS });
    }
    expect(await settledMailsTo(victim.email, PER_ADDRESS)).toBe(PER_ADDRESS);
    expect(mailsTo(unknown)).toBe(0);
  });

  it("one client asking resets for many addresses is stopped by its own budget", async () => {
    let refusedAt = 0;
    for (let i = 1; i <= PER_CLIENT + 1 && refusedAt === 0; i++) {
      const res = await call("POST", "/api/v1/auth/password-reset", {}, { email: uniqueEmail(`spray-${i}`) });
      if (res.status === 429) {
        expectV1Error(res, 429, "RATE_LIMIT_EXCEEDED");
        expect(res.body.error.details).toMatchObject({ limit: PER_CLIENT });
        refusedAt = i;
      } else expect(res.status, res.text).toBe(202);
    }
    // The first test spent some of this client's hour already: the refusal comes at the 20th at the latest.
    expect(refusedAt).toBeGreaterThan(0);
    expect(refusedAt).toBeLessThanOrEqual(PER_CLIENT);
  });

  it("address changes aimed at a stranger's mailbox, from two accounts, reach it three times at most", async () => {
    const target = uniqueEmail("stranger");
    const first = await register("flood-a");
    const second = await register("flood-b");
    const ask = (who: typeof first) =>
      call("POST", "/api/v1/auth/email", { cookie: who.token, csrf: who.csrf } satisfies Caller, {
        email: target,
        current_password: who.password,
      });
    const statuses: number[] = [];
    for (const who of [first, second, first, second]) statuses.push((await ask(who)).status);
    expect(statuses).toEqual([202, 202, 202, 429]);
    const refused = await ask(first);
    expectV1Error(refused, 429, "RATE_LIMIT_EXCEEDED");
    expect(mailsTo(target)).toBe(PER_ADDRESS);
  });
});
