// Leaving for good in the dashboard, in real Chromium: a person with a link opens Account, reads in
// the dialog what would go (their workspace, its link), is offered the export, types their password
// and e-mail address, and lands on sign-in, signed out, with a notice saying the account is gone.
// The dialog and the notice are checked with axe-core and photographed at desktop and phone width.
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BrowserFixture,
  checkPage,
  fetchWithKey,
  getInPage,
  openDashboard,
  openPage,
  signUpThroughApi,
} from "../browser.ts";

const stamp = `${process.pid}${Date.now().toString(36)}`;
const PASSWORD = "correct horse battery";

export function leaveStory(web: BrowserFixture): void {
  describe("leaving for good: Delete my account", () => {
    let owner: BrowserContext;
    let page: Page;
    const cspViolations: string[] = [];
    const email = `noor-${stamp}@example.com`;

    beforeAll(async () => {
      owner = await web.newOwner();
      const key = await signUpThroughApi(owner, email);
      const res = await fetchWithKey(web, key, "POST", "/api/v1/links", {
        url: "https://example.com/farewell",
        title: "Farewell post",
      });
      expect(res.status).toBe(201);
      page = await openDashboard(owner, cspViolations);
    });
    afterAll(async () => {
      await owner?.close();
    });

    it("the dialog lists what goes and offers the export; the button waits for the password and the e-mail", async () => {
      await openPage(page, "Account");
      await page.getByRole("button", { name: "Delete my account…" }).click();
      const dialog = page.getByRole("dialog", { name: "Delete your account" });
      await expect.poll(() => dialog.getByTestId("workspaces-deleted").textContent()).toMatch(/\(1 link\)/);
      await expect
        .poll(() =>
          dialog.getByTestId("export-offer").getByRole("link", { name: "export your links" }).count(),
        )
        .toBe(1);
      const submit = dialog.getByRole("button", { name: "Delete my account" });
      expect(await submit.isDisabled()).toBe(true);
      await dialog.getByLabel("Your password").fill(PASSWORD);
      await dialog.getByLabel(/Type your e-mail address/).fill("someone-else@example.com");
      expect(await submit.isDisabled()).toBe(true);
      await dialog.getByLabel(/Type your e-mail address/).fill(email);
      expect(await submit.isDisabled()).toBe(false);
      await checkPage(page, "delete-account");
    });

    it("deleting signs the person out to sign-in, which says the account is gone", async () => {
      const dialog = page.getByRole("dialog", { name: "Delete your account" });
      await dialog.getByRole("button", { name: "Delete my account" }).click();
      await page.getByTestId("account-deleted").waitFor();
      expect(new URL(page.url()).pathname).toBe("/login");
      expect((await getInPage(page, "/api/v1/auth/session")).status).toBe(401);
      await checkPage(page, "account-deleted");
      expect(cspViolations).toEqual([]);
    });
  });
}
