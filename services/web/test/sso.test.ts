// Single sign-on in real Chromium, against a real OpenID Connect provider started here: an owner sets
// up the workspace's provider on the "Single sign-on" settings page (the first save names the DNS
// record to publish; once it is published the save succeeds and the page shows the sign-in link); a
// colleague opens that link, signs in through the provider and lands in the dashboard as a member of
// the workspace, without ever choosing a password; someone from another domain is sent back to the
// sign-in page with the reason. The pages are checked with axe-core and photographed at desktop and
// phone width. A stack of its own: the provider must be known to management when it starts.
import { existsSync } from "node:fs";
import { startTestIdp, type TestIdp } from "@kurz/testing/oidc-idp";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CHROMIUM,
  checkPage,
  DESKTOP,
  openPage,
  signUpThroughApi,
  useBrowserStack,
  watchCsp,
} from "./browser.ts";

const stamp = `${process.pid}${Date.now().toString(36)}`;
const DOMAIN = `acme-${stamp}.example`;

describe.skipIf(!existsSync(CHROMIUM))(
  "single sign-on in Chromium (skipped without /usr/bin/chromium)",
  () => {
    let idp: TestIdp;
    beforeAll(async () => {
      idp = await startTestIdp();
    });
    afterAll(() => idp?.stop());
    const web = useBrowserStack(() => ({ SSO_ALLOW_HOSTS: idp.host }));

    let owner: BrowserContext;
    let page: Page;
    let signInUrl = "";
    const cspViolations: string[] = [];

    beforeAll(async () => {
      idp.addClient({
        clientId: "kurz-acme",
        clientSecret: "acme-secret",
        redirectUri: `${web.stack.origin}/api/v1/auth/oidc/callback`,
      });
      owner = await web.newOwner();
      await signUpThroughApi(owner, `owner@${DOMAIN}`);
      page = await owner.newPage();
      watchCsp(page, cspViolations);
    });
    afterAll(async () => {
      await owner?.close();
    });

    it("an owner sets up the workspace's provider, proving the domain in DNS", async () => {
      await page.goto("/dashboard");
      await openPage(page, "Single sign-on");
      await page.getByRole("heading", { level: 1, name: "Single sign-on" }).waitFor();
      const form = page.getByRole("form", { name: "Single sign-on provider" });
      await form.getByLabel("Issuer URL").fill(idp.issuer);
      await form.getByLabel("Client ID").fill("kurz-acme");
      await form.getByLabel("Client secret").fill("acme-secret");
      await form.getByLabel("E-mail domains").fill(DOMAIN);
      await form.getByLabel("New people join as").selectOption("member");
      await form.getByRole("button", { name: "Save" }).click();

      // The domain is not proven yet: the page names the record to publish.
      await page.getByRole("alert").filter({ hasText: "Publish these TXT records" }).waitFor();
      const name = `_kurz-verify.${DOMAIN}`;
      const item = page.locator(".sso-records li").filter({ hasText: name });
      const value = (await item.locator("code").nth(1).textContent()) ?? "";
      expect(value).toMatch(/^kurz-verify=[0-9a-f]{32}$/);
      await web.dns.setTxt(name, [value]);

      await form.getByRole("button", { name: "Save" }).click();
      await page.getByText("Single sign-on is saved.").first().waitFor();
      signInUrl = (await page.getByTestId("sso-sign-in-url").textContent()) ?? "";
      expect(signInUrl).toMatch(/\/login\?sso=[0-9a-f-]{36}$/);
      await checkPage(page, "sso-settings");
    });

    it("a colleague signs in through the provider and lands in the workspace as a member", async () => {
      const colleague = await web.browser.newContext({ viewport: DESKTOP });
      colleague.setDefaultTimeout(15_000);
      const p = await colleague.newPage();
      watchCsp(p, cspViolations);
      idp.signInAs(`ana-${stamp}`, { email: `ana@${DOMAIN}`, email_verified: true });
      await p.goto(signInUrl);
      const button = p.getByRole("link", { name: "Sign in with your organisation" });
      await button.waitFor();
      await checkPage(p, "sso-sign-in");
      await button.click();
      await p.waitForURL(`${web.stack.origin}/dashboard`);
      await p.getByRole("button", { name: /^Workspace:/ }).waitFor();
      const session = await p.evaluate(
        async () =>
          ((await (await fetch("/api/v1/auth/session")).json()) as { data: { email: string; role: string } })
            .data,
      );
      expect(session.email).toBe(`ana@${DOMAIN}`);
      expect(session.role).toBe("member");
      await checkPage(p, "sso-landed");
      await colleague.close();
    });

    it("someone from another domain is sent back to the sign-in page with the reason", async () => {
      const stranger = await web.browser.newContext({ viewport: DESKTOP });
      stranger.setDefaultTimeout(15_000);
      const p = await stranger.newPage();
      idp.signInAs(`eve-${stamp}`, { email: `eve@elsewhere-${stamp}.example`, email_verified: true });
      await p.goto(signInUrl);
      await p.getByRole("link", { name: "Sign in with your organisation" }).click();
      await p.getByRole("alert").filter({ hasText: "may not join this workspace" }).waitFor();
      expect(new URL(p.url()).hash).toBe("#sso_error=domain_not_allowed");
      await stranger.close();
    });

    it("broke no Content Security Policy rule", () => {
      expect(cspViolations).toEqual([]);
    });
  },
);
