// Getting back in, as a signed-out visitor sees it in real Chromium: "Forgot your password?" on the
// sign-in page asks for a reset link (this stack sends no e-mail, and the page says so plainly), and
// links from e-mails with a used or made-up token say that they no longer work. Each page is checked with
// axe-core and photographed at desktop and phone width.
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserFixture, checkPage, watchCsp } from "../browser.ts";

/** A token of the right shape that no link ever carried. */
const MADE_UP = "Q".repeat(43);

export function recoveryStory(web: BrowserFixture): void {
  describe("recovery: a forgotten password and the links Kurz e-mails", () => {
    let visitor: BrowserContext;
    let page: Page;
    const cspViolations: string[] = [];

    beforeAll(async () => {
      visitor = await web.newOwner();
      page = await visitor.newPage();
      watchCsp(page, cspViolations);
    });
    afterAll(async () => {
      await visitor?.close();
    });

    it("asks for a reset link from the sign-in page, and says when the server sends no e-mail", async () => {
      await page.goto(`${web.stack.origin}/login`);
      await page.getByRole("link", { name: "Forgot your password?" }).click();
      await page.getByRole("heading", { level: 1, name: "Reset your password" }).waitFor();
      await checkPage(page, "forgot-password");
      await page.getByLabel("E-mail").fill(`nobody-${process.pid}@example.com`);
      await page.getByRole("button", { name: "Send the link" }).click();
      await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/needs outgoing e-mail/);
      await page.getByRole("link", { name: "Back to sign-in" }).click();
      await page.getByRole("heading", { level: 1, name: "Sign in to Kurz" }).waitFor();
    });

    it("a reset link that no longer works says so, and keeps the password form", async () => {
      await page.goto(`${web.stack.origin}/login#reset=${MADE_UP}`);
      await page.getByRole("heading", { level: 1, name: "Choose a new password" }).waitFor();
      await checkPage(page, "reset-password");
      await page.getByLabel("New password").fill("plum kayak lantern harbour");
      await page.getByRole("button", { name: "Set password and sign in" }).click();
      await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/used already or has expired/);
      expect(page.url()).toContain("/login#reset=");
    });

    it("an address confirmation link that no longer works says so", async () => {
      await page.goto(`${web.stack.origin}/login#email=${MADE_UP}`);
      await page.getByRole("heading", { level: 1, name: "Confirm your e-mail address" }).waitFor();
      await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/used already or has expired/);
      await checkPage(page, "confirm-email");
      expect(cspViolations).toEqual([]);
    });
  });
}
