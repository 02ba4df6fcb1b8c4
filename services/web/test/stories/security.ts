// Two-factor sign-in in the dashboard, as a person sets it up in real Chromium with a virtual
// authenticator (the DevTools protocol's WebAuthn domain: a platform authenticator with resident keys
// and user verification, which answers every prompt as if the person touched it). They confirm their
// password on Settings → Security, add an authenticator app (the code computed from the key the page
// shows) and see their recovery codes once, add a passkey, and as the owner require two-factor
// sign-in. Signing in again then asks for the second factor, and a passkey answers it; a passkey alone
// signs in too. The pages run on http://localhost (browsers refuse an IP address as a passkey's site).

import { Secret, TOTP } from "otpauth";
import type { BrowserContext, CDPSession, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserFixture, checkPage, DESKTOP, openPage, signUpThroughApi, watchCsp } from "../browser.ts";

const stamp = `${process.pid}${Date.now().toString(36)}`;
const PASSWORD = "correct horse battery";

export function securityStory(web: BrowserFixture): void {
  describe("security: an authenticator app, passkeys and the second sign-in step", () => {
    let person: BrowserContext;
    let page: Page;
    let cdp: CDPSession;
    const cspViolations: string[] = [];
    const email = `noor-${stamp}@example.com`;
    const origin = () => web.stack.origin.replace("127.0.0.1", "localhost");

    const signOut = async () => {
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByRole("heading", { level: 1, name: "Sign in to Kurz" }).waitFor();
    };
    const withPassword = async () => {
      await page.getByLabel("E-mail").fill(email);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
    };

    beforeAll(async () => {
      person = await web.browser.newContext({ viewport: DESKTOP, baseURL: origin() });
      person.setDefaultTimeout(15_000);
      await signUpThroughApi(person, email);
      page = await person.newPage();
      watchCsp(page, cspViolations);
      cdp = await person.newCDPSession(page);
      await cdp.send("WebAuthn.enable");
      await cdp.send("WebAuthn.addVirtualAuthenticator", {
        options: {
          protocol: "ctap2",
          transport: "internal",
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
          automaticPresenceSimulation: true,
        },
      });
      await page.goto("/dashboard");
      await page.getByRole("heading", { name: "Overview" }).waitFor();
    });
    afterAll(async () => {
      await person?.close();
    });

    it("adds an authenticator app after confirming the password, and shows the recovery codes once", async () => {
      await openPage(page, "Security");
      await page.getByRole("heading", { level: 1, name: "Security" }).waitFor();
      expect(await page.getByRole("button", { name: "Set up an authenticator app" }).isDisabled()).toBe(true);
      await checkPage(page, "security");
      await page.getByLabel("Current password").fill(PASSWORD);
      await page.getByRole("button", { name: "Confirm" }).click();
      await page.getByRole("button", { name: "Set up an authenticator app" }).click();
      await page.getByRole("img", { name: "QR code for your authenticator app" }).waitFor();
      const secret = (await page.getByTestId("totp-secret").textContent()) ?? "";
      const code = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate();
      await page.getByLabel("Code").fill(code);
      await page.getByRole("button", { name: "Turn on" }).click();
      const codes = page.getByTestId("recovery-codes").getByRole("listitem");
      await expect.poll(() => codes.count()).toBe(10);
      await page.getByTestId("totp-on").waitFor();
      await checkPage(page, "security-recovery-codes");
    });

    it("adds a passkey with the device's authenticator, and renames it", async () => {
      await page.getByLabel("Name (optional)").fill("Work laptop");
      await page.getByRole("button", { name: "Add a passkey" }).click();
      const row = page.getByTestId("passkey");
      await row.filter({ hasText: "Work laptop" }).waitFor();
      await row.getByRole("button", { name: "Rename" }).click();
      await row.getByLabel("Passkey name").fill("Noor's laptop");
      await row.getByRole("button", { name: "Save" }).click();
      await row.filter({ hasText: "Noor's laptop" }).waitFor();
    });

    it("as the owner, requires two-factor sign-in of the workspace", async () => {
      const toggle = page.getByRole("switch", { name: /Members must have/ });
      await toggle.check();
      await expect.poll(() => toggle.isChecked()).toBe(true);
      await checkPage(page, "security-passkeys");
    });

    it("signing in with the password then asks for the second factor, and a passkey answers it", async () => {
      await signOut();
      await withPassword();
      await page.getByRole("heading", { level: 1, name: "Confirm it is you" }).waitFor();
      await checkPage(page, "sign-in-two-factor");
      await page.getByRole("button", { name: "Use a passkey" }).click();
      await page.getByRole("heading", { name: "Overview" }).waitFor();
    });

    it("a wrong code says so; a passkey alone signs in from the sign-in page", async () => {
      await signOut();
      await withPassword();
      await page.getByLabel("Code from your authenticator app").fill("000000");
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/wrong or was already used/);
      await page.getByRole("button", { name: "Start over" }).click();
      await page.getByRole("button", { name: "Sign in with a passkey" }).click();
      await page.getByRole("heading", { name: "Overview" }).waitFor();
      expect(cspViolations).toEqual([]);
    });
  });
}
