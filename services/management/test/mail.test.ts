// Kurz's e-mail through a real SMTP server (smtp-server, started here), parsed and its links followed:
// - an invitation reaches the invited address with the accept link, which works once; the inviter
//   never sees the link; one the SMTP server refuses is withdrawn (503), not left pending unmailed;
// - a password reset link reaches an account's address, sets a new password once and ends every
//   session; an unknown address gets the same answer and no message; requests are budgeted;
// - a new e-mail address takes effect only through the link mailed to it, once; the former is told;
// - a sign-in from a browser that never signed in as the user is announced; one from a known is not.
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { useStack } from "@kurz/testing/use-stack";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** Addresses the SMTP server refuses at RCPT TO, as a full mailbox would. */
const REFUSED = /^refused-/;
const received: ParsedMail[] = [];
const waiters: (() => void)[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  onRcptTo(address, _session, callback) {
    if (REFUSED.test(address.address)) callback(new Error("550 mailbox unavailable"));
    else callback();
  },
  onData(stream, _session, callback) {
    simpleParser(stream)
      .then((mail) => {
        received.push(mail);
        for (const wake of waiters.splice(0)) wake();
        callback();
      })
      .catch(callback);
  },
});
smtp.listen(0, "127.0.0.1");
await once(smtp.server, "listening");
const smtpPort = (smtp.server.address() as AddressInfo).port;

/** The first message received for `to`, once it has arrived. */
async function mailTo(to: string): Promise<ParsedMail> {
  for (;;) {
    const found = received.find((m) => m.to && !Array.isArray(m.to) && m.to.value[0]?.address === to);
    if (found) return found;
    await new Promise<void>((wake) => waiters.push(wake));
  }
}

describe("e-mail", () => {
  const bed = useStack({
    inProcess: true,
    extraEnv: { SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, MAIL_FROM: "Kurz <kurz@example.test>" },
  });
  const tag = `${process.pid}-${Date.now()}`;
  let owner: { cookie: string; csrf: string; workspace: string };

  async function call(
    path: string,
    init: { method?: string; body?: unknown; cookie?: string; csrf?: string },
  ) {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (init.cookie) headers.cookie = init.cookie;
    if (init.csrf) headers["x-csrf-token"] = init.csrf;
    const res = await fetch(`${bed.stack.origin}/api/v1${path}`, {
      method: init.method ?? "GET",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const set = res.headers.getSetCookie().map((c) => c.split(";", 1)[0]!);
    const cookie = set.find((c) => c.startsWith("kurz_session=")) ?? "";
    const devices = set.filter((c) => c.startsWith("kurz_device="));
    // biome-ignore lint/suspicious/noExplicitAny: assertions check the shape member by member
    return { status: res.status, body: (await res.json()) as any, cookie, devices };
  }

  beforeAll(async () => {
    const res = await call("/auth/register", {
      method: "POST",
      body: { email: `mail-owner-${tag}@example.com`, password: "a long owner passphrase" },
    });
    expect(res.status).toBe(201);
    owner = {
      cookie: res.cookie,
      csrf: res.body.data.session.csrf_token,
      workspace: res.body.data.account.id,
    };
  });
  afterAll(async () => {
    await new Promise<void>((done) => smtp.close(() => done()));
  });

  const invite = (email: string, role = "member") =>
    call(`/workspaces/${owner.workspace}/invitations`, {
      method: "POST",
      body: { email, role },
      cookie: owner.cookie,
      csrf: owner.csrf,
    });

  it("mails the link to the invited address only; the link accepts once", async () => {
    const email = `mail-invitee-${tag}@example.com`;
    const res = await invite(email);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toMatchObject({ email, role: "member", emailed: true });
    expect(res.body.data.accept_url).toBeUndefined();

    const mail = await mailTo(email);
    expect(mail.from?.value[0]).toMatchObject({ name: "Kurz", address: "kurz@example.test" });
    expect(mail.subject).toMatch(/^Join .+ on Kurz$/);
    expect(mail.text).toContain(`mail-owner-${tag}@example.com invites you`);
    const link = /(http\S+#invitation=([A-Za-z0-9_-]{43}))/.exec(mail.text ?? "");
    expect(link, mail.text).not.toBeNull();
    expect(link![1]!.startsWith(`${bed.stack.env.PUBLIC_BASE_URL}/signup#`)).toBe(true);

    const token = link![2]!;
    const accepted = await call(`/invitations/${token}/accept`, {
      method: "POST",
      body: { password: "the invitee's own passphrase" },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.data.session).toMatchObject({ account_id: owner.workspace, email, role: "member" });
    const again = await call(`/invitations/${token}/accept`, {
      method: "POST",
      body: { password: "the invitee's own passphrase" },
    });
    expect(again.status).toBe(404);
  });

  it("resets a forgotten password by e-mail, once, ending every session", async () => {
    const email = `mail-reset-${tag}@example.com`;
    const registered = await call("/auth/register", {
      method: "POST",
      body: { email, password: "the first long passphrase" },
    });
    expect(registered.status).toBe(201);
    const unknown = await call("/auth/password-reset", {
      method: "POST",
      body: { email: `mail-nobody-${tag}@example.com` },
    });
    const known = await call("/auth/password-reset", {
      method: "POST",
      body: { email: email.toUpperCase() },
    });
    expect([unknown.status, unknown.body]).toEqual([202, { success: true, data: { requested: true } }]);
    expect([known.status, known.body]).toEqual([unknown.status, unknown.body]);

    const mail = await mailTo(email);
    expect(received.some((m) => m.text?.includes(`mail-nobody-${tag}`))).toBe(false);
    expect(mail.subject).toBe("Reset your Kurz password");
    const link = /(http\S+#reset=([A-Za-z0-9_-]{43}))/.exec(mail.text ?? "");
    expect(link, mail.text).not.toBeNull();
    expect(link![1]!.startsWith(`${bed.stack.env.PUBLIC_BASE_URL}/login#`)).toBe(true);
    const token = link![2]!;

    const weak = await call(`/auth/password-reset/${token}`, {
      method: "POST",
      body: { password: "password1" },
    });
    expect(weak.status).toBe(400);
    const reset = await call(`/auth/password-reset/${token}`, {
      method: "POST",
      body: { password: "a brand new passphrase" },
    });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect(reset.body.data.session.email).toBe(email);
    expect((await call("/auth/session", { cookie: reset.cookie })).status).toBe(200);
    expect((await call("/auth/session", { cookie: registered.cookie })).status).toBe(401);
    const signIn = (password: string) => call("/auth/login", { method: "POST", body: { email, password } });
    expect((await signIn("the first long passphrase")).status).toBe(401);
    expect((await signIn("a brand new passphrase")).status).toBe(200);
    const again = await call(`/auth/password-reset/${token}`, {
      method: "POST",
      body: { password: "yet another passphrase" },
    });
    expect(again.status).toBe(404);
  });

  it("changes the sign-in address only through the link mailed to the new one", async () => {
    const email = `mail-change-${tag}@example.com`;
    const next = `mail-changed-${tag}@example.com`;
    const me = await call("/auth/register", {
      method: "POST",
      body: { email, password: "a first passphrase here" },
    });
    expect(me.status).toBe(201);
    const session = { cookie: me.cookie, csrf: me.body.data.session.csrf_token as string };
    const wrong = await call("/auth/email", {
      method: "POST",
      body: { email: next, current_password: "not the passphrase" },
      ...session,
    });
    expect(wrong.status).toBe(403);
    const asked = await call("/auth/email", {
      method: "POST",
      body: { email: next, current_password: "a first passphrase here" },
      ...session,
    });
    expect([asked.status, asked.body.data]).toEqual([202, { requested: true, email: next }]);
    // Nothing changes until the link is followed.
    expect((await call("/auth/session", { cookie: me.cookie })).body.data.email).toBe(email);

    const mail = await mailTo(next);
    const link = /(http\S+#email=([A-Za-z0-9_-]{43}))/.exec(mail.text ?? "");
    expect(link, mail.text).not.toBeNull();
    expect(link![1]!.startsWith(`${bed.stack.env.PUBLIC_BASE_URL}/login#`)).toBe(true);
    const confirmed = await call(`/auth/email/${link![2]!}`, { method: "POST" });
    expect([confirmed.status, confirmed.body.data]).toEqual([200, { changed: true, email: next }]);
    expect((await call(`/auth/email/${link![2]!}`, { method: "POST" })).status).toBe(404);

    const notice = await mailTo(email);
    expect(notice.subject).toBe("Your Kurz e-mail address was changed");
    expect((await call("/auth/session", { cookie: me.cookie })).body.data.email).toBe(next);
    expect((await call("/account", { cookie: me.cookie })).body.data.email).toBe(next);
    const signIn = (address: string) =>
      call("/auth/login", { method: "POST", body: { email: address, password: "a first passphrase here" } });
    expect((await signIn(email)).status).toBe(401);
    expect((await signIn(next)).status).toBe(200);
  });

  it("announces a sign-in from a new browser, not from one that signed in before", async () => {
    const email = `mail-device-${tag}@example.com`;
    const password = "a device test passphrase";
    const me = await call("/auth/register", { method: "POST", body: { email, password } });
    expect(me.status).toBe(201);
    const device = me.devices[0];
    expect(device).toMatch(/^kurz_device=[A-Za-z0-9_-]{43}$/);
    // The browser that signed up signs in again: known, no notice, and its token is kept.
    const again = await call("/auth/login", { method: "POST", body: { email, password }, cookie: device });
    expect(again.status).toBe(200);
    expect(again.devices[0]).toBe(device);
    // Another browser (no device cookie): announced.
    const elsewhere = await call("/auth/login", { method: "POST", body: { email, password } });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.devices[0]).not.toBe(device);
    const notice = await mailTo(email);
    expect(notice.subject).toBe("New sign-in to your Kurz account");
    expect(received.filter((m) => m.subject === notice.subject && m.text?.includes(email))).toHaveLength(1);
  });

  it("budgets reset requests per address, whether or not it has an account", async () => {
    const ask = () =>
      call("/auth/password-reset", { method: "POST", body: { email: `mail-flood-${tag}@example.com` } });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await ask()).status);
    expect(statuses).toEqual([202, 202, 202, 429]);
  });

  it("withdraws an invitation the SMTP server refuses, and says so", async () => {
    const res = await invite(`refused-${tag}@example.com`);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("SERVICE_UNAVAILABLE");
    const pending = await call(`/workspaces/${owner.workspace}/invitations`, { cookie: owner.cookie });
    expect(pending.status).toBe(200);
    expect(pending.body.data.map((i: { email: string }) => i.email)).not.toContain(
      `refused-${tag}@example.com`,
    );
  });
});
