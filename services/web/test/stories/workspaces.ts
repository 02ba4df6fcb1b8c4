// Workspaces in the dashboard, as two people use them in real Chromium: the owner invites a second
// person from Members and hands them the link; they accept it in a browser of their own and both see the
// shared workspace's links. The owner's switcher changes which links are listed, a stale stored choice
// falls back to the first workspace, roles change what Members offers, members are removed and leave.
// The new pages are checked with axe-core and photographed at desktop and phone width.
import { readFileSync } from "node:fs";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BrowserFixture,
  checkPage,
  fetchWithKey,
  openDashboard,
  openPage,
  signUpThroughApi,
  watchCsp,
} from "../browser.ts";

const stamp = `${process.pid}${Date.now().toString(36)}`;
const PASSWORD = "correct horse battery";

export function workspacesStory(web: BrowserFixture): void {
  describe("workspaces: members, invitations and the switcher", () => {
    let owner: BrowserContext;
    let guest: BrowserContext;
    let page: Page;
    let guestPage: Page;
    const cspViolations: string[] = [];
    const ownerEmail = `ines-${stamp}@example.com`;
    const guestEmail = `sam-${stamp}@example.com`;
    let acceptPath = "";

    const linkTitles = (p: Page) => p.getByTestId("link-row").locator(".title").allTextContents();
    const showLinks = async (p: Page) => {
      await p.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Links" }).click();
      await p.getByRole("heading", { level: 1, name: "Links" }).waitFor();
    };
    const switcher = (p: Page) => p.getByRole("button", { name: /^Workspace:/ });
    const chooseWorkspace = async (p: Page, name: string) => {
      await switcher(p).click();
      await p
        .getByRole("list", { name: "Workspaces" })
        .getByRole("button", { name: new RegExp(`^${name} `) })
        .click();
      await switcher(p).filter({ hasText: name }).waitFor();
    };
    /** Accepts the invitation at `path` (its token in the fragment) the way a script would. */
    const acceptThroughApi = async (path: string, password: string) => {
      const token = new URLSearchParams(new URL(path, web.stack.origin).hash.slice(1)).get("invitation");
      const res = await fetch(`${web.stack.origin}/api/v1/invitations/${token}/accept`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ password }),
      });
      expect(res.status).toBe(200);
    };
    const invite = async (email: string, role: string) => {
      const form = page.getByRole("form", { name: "Invite someone" });
      await form.getByLabel("E-mail").fill(email);
      await form.getByLabel("Role").selectOption(role);
      await form.getByRole("button", { name: "Invite" }).click();
      const dialog = page.getByRole("dialog", { name: "Send this link" });
      const url = (await dialog.getByTestId("accept-url").textContent()) ?? "";
      expect(url).toMatch(/\/signup#invitation=[A-Za-z0-9_-]{43}$/);
      return { dialog, url, path: new URL(url).pathname + new URL(url).hash };
    };

    beforeAll(async () => {
      owner = await web.newOwner();
      const key = await signUpThroughApi(owner, ownerEmail);
      const res = await fetchWithKey(web, key, "POST", "/api/v1/links", {
        url: "https://example.com/roadmap",
        title: "Shared roadmap",
      });
      expect(res.status).toBe(201);
      page = await openDashboard(owner, cspViolations);
    });
    afterAll(async () => {
      await owner?.close();
      await guest?.close();
    });

    it("the owner invites someone with a role and gets the link to send; an invitation can be withdrawn", async () => {
      await openPage(page, "Members");
      await page.getByRole("heading", { level: 1, name: "Members" }).waitFor();
      await page
        .getByTestId("member-row")
        .filter({ hasText: `${ownerEmail} (you)` })
        .waitFor();
      await page.getByText("No pending invitations.").waitFor();

      const withdrawn = await invite(`nobody-${stamp}@example.com`, "viewer");
      await withdrawn.dialog.getByRole("button", { name: "Done" }).click();
      const sam = await invite(guestEmail, "member");
      acceptPath = sam.path;
      await sam.dialog.getByRole("button", { name: "Copy link" }).click();
      expect(await page.evaluate("navigator.clipboard.readText()")).toBe(sam.url);
      await checkPage(page, "members-invite-link");
      await sam.dialog.getByRole("button", { name: "Done" }).click();

      const rows = page.getByTestId("invitation-row");
      await expect.poll(() => rows.count()).toBe(2);
      await checkPage(page, "invitations");
      await rows
        .filter({ hasText: "nobody-" })
        .getByRole("button", { name: /^Withdraw/ })
        .click();
      const confirm = page.getByRole("dialog", { name: /^Withdraw the invitation/ });
      await confirm.getByRole("button", { name: "Withdraw" }).click();
      await expect.poll(() => rows.count()).toBe(1);
      // The withdrawn link no longer works.
      const token = new URLSearchParams(new URL(withdrawn.path, web.stack.origin).hash.slice(1)).get(
        "invitation",
      );
      const gone = await fetch(`${web.stack.origin}/api/v1/invitations/${token}/accept`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ password: PASSWORD }),
      });
      expect(gone.status).toBe(404);
    });

    it("the second person accepts in a browser of their own, choosing a password, and both see the shared links", async () => {
      guest = await web.newOwner();
      guestPage = await guest.newPage();
      watchCsp(guestPage, cspViolations);
      await guestPage.goto(acceptPath);
      await guestPage.getByRole("heading", { level: 1, name: "Join a workspace" }).waitFor();
      await guestPage.getByLabel("Password").fill("short");
      await guestPage.getByRole("button", { name: "Join workspace" }).click();
      await guestPage.getByRole("alert").waitFor();
      await checkPage(guestPage, "join-workspace");
      await guestPage.getByLabel("Password").fill(PASSWORD);
      await guestPage.getByRole("button", { name: "Join workspace" }).click();
      await guestPage.waitForURL("**/dashboard");
      await guestPage.getByRole("heading", { name: "Overview" }).waitFor();
      await showLinks(guestPage);
      await expect.poll(() => linkTitles(guestPage)).toEqual(["Shared roadmap · "]);

      await page.reload();
      await expect.poll(() => page.getByTestId("member-row").count()).toBe(2);
      await page.getByTestId("member-row").filter({ hasText: guestEmail }).waitFor();
      await expect.poll(() => page.getByTestId("invitation-row").count()).toBe(0);
      await showLinks(page);
      await expect.poll(() => linkTitles(page)).toEqual(["Shared roadmap · "]);
    });

    it("the switcher makes a new workspace and changes which links are listed; the choice persists, a stale one falls back to the first", async () => {
      await showLinks(page);
      await switcher(page).click();
      await page.getByRole("button", { name: "New workspace" }).click();
      const dialog = page.getByRole("dialog", { name: "New workspace" });
      await dialog.getByLabel("Name").fill("Side project");
      await dialog.getByRole("button", { name: "Create workspace" }).click();
      await switcher(page).filter({ hasText: "Side project" }).waitFor();
      await page.getByText("No links yet.").waitFor();

      await switcher(page).click();
      const list = page.getByRole("list", { name: "Workspaces" });
      await list.getByRole("button", { name: "Side project owner" }).waitFor();
      expect(await list.getByRole("button", { name: /^Side project/ }).getAttribute("aria-current")).toBe(
        "true",
      );
      await checkPage(page, "workspace-switcher");
      await page.keyboard.press("Escape");
      expect(await list.isVisible()).toBe(false);

      // The choice survives a reload, and the other workspace's links come back when it is chosen.
      await page.reload();
      await page.getByText("No links yet.").waitFor();
      const first = await page.evaluate("localStorage.getItem('kurz.workspace')");
      // An export is of the chosen workspace too, though a download link carries no header.
      await openPage(page, "Export");
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: "Download CSV" }).click(),
      ]);
      const csv = readFileSync((await download.path()) ?? "", "utf8");
      expect(csv.split("\n")[0]).toContain("short_url");
      expect(csv).not.toContain("roadmap");
      // So is a link's QR code, an image fetched with the header there.
      const linkId = (await page.evaluate(`(async () => {
        const session = await (await fetch("/api/v1/auth/session")).json();
        const res = await fetch("/api/v1/links", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-workspace-id": localStorage.getItem("kurz.workspace"),
            "x-csrf-token": session.data.csrf_token,
          },
          body: JSON.stringify({ url: "https://example.com/side" }),
        });
        return (await res.json()).data.id;
      })()`)) as string;
      await page.goto(`/dashboard/links/${linkId}`);
      const qr = page.getByRole("img", { name: /^QR code for/ });
      await expect
        .poll(() => qr.evaluate((img) => (img as { naturalWidth: number }).naturalWidth))
        .toBeGreaterThan(0);
      await showLinks(page);
      await chooseWorkspace(page, `ines-${stamp}`);
      await expect.poll(() => linkTitles(page)).toEqual(["Shared roadmap · "]);
      expect(await page.evaluate("localStorage.getItem('kurz.workspace')")).not.toBe(first);

      // A stored workspace the session does not list (here a made-up one) falls back to the first.
      await guestPage.evaluate(
        "localStorage.setItem('kurz.workspace', '00000000-0000-4000-8000-000000000000')",
      );
      await guestPage.reload();
      await expect.poll(() => linkTitles(guestPage)).toEqual(["Shared roadmap · "]);
      expect(await guestPage.getByRole("alert").count()).toBe(0);
    });

    it("a role decides what Members offers: the owner makes the second person a viewer, who sees no invite form nor role choices", async () => {
      await openPage(page, "Members");
      const row = page.getByTestId("member-row").filter({ hasText: guestEmail });
      await row.getByRole("combobox", { name: `Role of ${guestEmail}` }).selectOption("viewer");
      await page.getByText(`${guestEmail} is now viewer.`).first().waitFor();
      await checkPage(page, "members");

      await openPage(guestPage, "Members");
      await guestPage.getByText("You are a viewer here.").waitFor();
      await guestPage.getByTestId("member-row").nth(1).waitFor();
      expect(await guestPage.getByRole("form", { name: "Invite someone" }).count()).toBe(0);
      expect(await guestPage.getByRole("combobox").count()).toBe(0);
      expect(await guestPage.getByRole("button", { name: /^Remove/ }).count()).toBe(0);
      // The audit log is for admins and owners: a viewer is not offered it.
      const settingsNav = guestPage.getByRole("navigation", { name: "Settings" });
      await expect.poll(() => settingsNav.getByRole("link", { name: "Audit log" }).count()).toBe(0);
      expect(await settingsNav.getByRole("link", { name: "Members" }).count()).toBe(1);
      await checkPage(guestPage, "members-viewer");
      // Links are read, not made: the page offers no "Create link" to a viewer, and still lists them.
      await showLinks(guestPage);
      await expect.poll(() => linkTitles(guestPage)).toEqual(["Shared roadmap · "]);
      expect(await guestPage.getByRole("button", { name: /^Create/ }).count()).toBe(0);
    });

    it("a viewer reads every page and is offered nothing that would change the workspace", async () => {
      await openPage(page, "Channels");
      await page.getByRole("button", { name: "Create channel" }).click();
      const form = page.getByRole("dialog", { name: "Create channel" });
      await form.getByLabel("Name").fill("Newsletter");
      await form.getByRole("button", { name: "Create channel" }).click();
      await page.getByTestId("channel-row").filter({ hasText: "Newsletter" }).waitFor();

      const offersChange = (p: Page) =>
        p.getByRole("button", { name: /^(Create|Add|Edit|Delete|Revoke|Verify|Assign|Links and)/ }).count();
      // The links: no selection, and the row's menu has only what reads.
      await showLinks(guestPage);
      await guestPage.getByTestId("link-row").first().waitFor();
      expect(await guestPage.getByRole("checkbox").count()).toBe(0);
      await guestPage
        .getByLabel(/^More actions for/)
        .first()
        .click();
      await guestPage.getByRole("button", { name: "QR code" }).waitFor();
      expect(await guestPage.getByRole("button", { name: /^(Edit|Delete|Deactivate)$/ }).count()).toBe(0);
      await guestPage.getByTestId("link-row").first().getByRole("link").first().click();
      await guestPage.getByRole("heading", { level: 2, name: "Analytics" }).waitFor();
      expect(await offersChange(guestPage)).toBe(0);
      expect(await guestPage.getByRole("switch").isDisabled()).toBe(true);

      await openPage(guestPage, "Channels");
      const channel = guestPage.getByTestId("channel-row").filter({ hasText: "Newsletter" });
      await channel.getByRole("link", { name: /^View links/ }).waitFor();
      expect(await offersChange(guestPage)).toBe(0);
      for (const [label, heading] of [
        ["Campaigns", "Campaigns"],
        ["Overlays", "CTA overlays"],
        ["Domains", "Branded domains"],
        ["Webhooks", "Webhooks"],
      ] as const) {
        await openPage(guestPage, label);
        await guestPage.getByRole("heading", { level: 1, name: heading }).waitFor();
        expect(await offersChange(guestPage), label).toBe(0);
      }
      // The workspace's settings are read, not changed: every control disabled, no Save, and it says why.
      await openPage(guestPage, "General");
      await guestPage.getByTestId("workspace-read-only").waitFor();
      expect(await guestPage.getByRole("button", { name: "Save" }).count()).toBe(0);
      for (const control of [
        guestPage.getByLabel("Workspace name"),
        guestPage.getByLabel("Hours until new links expire"),
        guestPage.getByRole("switch", { name: "Forward query parameters" }),
        guestPage.getByLabel("Check destinations"),
      ])
        expect(await control.isDisabled()).toBe(true);
      await checkPage(guestPage, "workspace-viewer");
      await openPage(guestPage, "Import");
      await guestPage.getByText("Importing is for the workspace's admins and owners").waitFor();
      expect(await guestPage.getByRole("button", { name: /^Import/ }).count()).toBe(0);
      // Everyone makes keys of their own; the owner's key is listed without a Revoke for the viewer.
      await openPage(guestPage, "API keys");
      await guestPage.getByTestId("key-row").first().waitFor();
      await guestPage.getByText("Owner access").first().waitFor();
      expect(await guestPage.getByRole("button", { name: /^Revoke/ }).count()).toBe(0);
      // A key with only some of the viewer's scopes: the list says which.
      await guestPage.getByRole("button", { name: "Create key" }).click();
      const create = guestPage.getByRole("dialog", { name: "Create API key" });
      await create.getByLabel("Name").fill("Weekly report");
      await create.getByLabel("Only what you pick").check();
      for (const scope of [
        "domains:read",
        "campaigns:read",
        "overlays:read",
        "webhooks:read",
        "imports:read",
      ])
        await create.getByLabel(scope).uncheck();
      await checkPage(guestPage, "keys-scopes");
      await create.getByLabel("Your password").fill(PASSWORD);
      await create.getByRole("button", { name: "Create key" }).click();
      await guestPage
        .getByRole("dialog", { name: "Your new API key" })
        .getByRole("button", { name: "Done" })
        .click();
      const made = guestPage.getByTestId("key-row").filter({ hasText: "Weekly report" });
      await made.getByText("links:read, analytics:read, workspace:read").waitFor();
      // The viewer's own key is theirs to revoke.
      expect(await made.getByRole("button", { name: /^Revoke/ }).count()).toBe(1);
      await openPage(page, "Members");
    });

    it("the owner removes a member after confirming; the second person leaves the workspace", async () => {
      const third = `lee-${stamp}@example.com`;
      const { dialog, path } = await invite(third, "admin");
      await dialog.getByRole("button", { name: "Done" }).click();
      await acceptThroughApi(path, PASSWORD);
      await page.reload();
      const rows = page.getByTestId("member-row");
      await expect.poll(() => rows.count()).toBe(3);
      await rows
        .filter({ hasText: third })
        .getByRole("button", { name: /^Remove/ })
        .click();
      await page
        .getByRole("dialog", { name: `Remove ${third}?` })
        .getByRole("button", { name: "Remove member" })
        .click();
      await expect.poll(() => rows.count()).toBe(2);

      // The second person makes a workspace of their own, then leaves the shared one and lands in theirs.
      await switcher(guestPage).click();
      await guestPage.getByRole("button", { name: "New workspace" }).click();
      await guestPage.getByRole("dialog", { name: "New workspace" }).getByLabel("Name").fill("Sam's");
      await guestPage.getByRole("button", { name: "Create workspace" }).click();
      await switcher(guestPage).filter({ hasText: "Sam's" }).waitFor();
      await chooseWorkspace(guestPage, `ines-${stamp}`);
      await openPage(guestPage, "Members");
      await guestPage.getByRole("button", { name: "Leave workspace" }).click();
      await guestPage
        .getByRole("dialog", { name: /^Leave / })
        .getByRole("button", { name: "Leave workspace" })
        .click();
      await guestPage.waitForURL("**/dashboard");
      await switcher(guestPage).filter({ hasText: "Sam's" }).waitFor();
      await switcher(guestPage).click();
      await expect
        .poll(() => guestPage.getByRole("list", { name: "Workspaces" }).getByRole("button").count())
        .toBe(1);

      await page.reload();
      await expect.poll(() => rows.count()).toBe(1);
      expect(cspViolations).toEqual([]);
    });
  });
}
