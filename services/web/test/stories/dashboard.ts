// The dashboard, as a person uses it, in real Chromium through the stack's public origin (the redirect
// service in front, the gateway serving the app and the API behind it): sign up, keep the first key,
// create a link, have someone follow it, see the click, share the statistics, revoke the key, sign out.
// Every page is checked with axe-core and photographed at desktop and phone width (docs/dashboard.md).
import { join } from "node:path";
import { waitFor } from "@kurz/testing";
import { useHttpServer } from "@kurz/testing/use-stack";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BrowserFixture,
  checkPage,
  DESKTOP,
  getInPage,
  openPage,
  PHONE,
  SHOTS,
  seriousViolations,
  sidewaysScroll,
  VISITOR_UA,
  watchCsp,
} from "../browser.ts";

export function dashboardStory(web: BrowserFixture): void {
  describe("the dashboard, from signing up to signing out everywhere", () => {
    let owner: BrowserContext;
    let page: Page;
    const cspViolations: string[] = [];
    const pagesChecked: string[] = [];
    const scriptsLoaded: string[] = [];
    const email = `ada-${Date.now()}@example.com`;
    let password = "correct horse battery";

    /** checkPage, and the page counted as checked. */
    const look = async (p: Page, name: string) => {
      await checkPage(p, name);
      pagesChecked.push(name);
    };

    // Where the link points: a page on loopback, since this machine cannot reach the internet.
    const destination = useHttpServer((_req, res) =>
      res.end("<!doctype html><title>Launch</title>Launch day"),
    );
    let landing = "";

    beforeAll(async () => {
      landing = `${destination().origin}/launch?utm_source=kurz`;
      owner = await web.newOwner();
      page = await owner.newPage();
      watchCsp(page, cspViolations);
      page.on("request", (r) => {
        if (r.resourceType() === "script") scriptsLoaded.push(r.url());
      });
    });
    afterAll(() => owner?.close());

    let apiKey = "";
    let shortUrl = "";
    let shortCode = "";

    it("sends a visitor without a session to sign-in, and explains a wrong password", async () => {
      await page.goto("/");
      await page.waitForURL("**/login");
      await expect(page.getByRole("heading", { name: "Sign in to Kurz" }).isVisible()).resolves.toBe(true);
      await page.getByLabel("E-mail").fill("nobody@example.com");
      await page.getByLabel("Password").fill("not the password");
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await page.getByRole("alert").filter({ hasText: "Invalid e-mail or password" }).waitFor();
      await look(page, "sign-in");
      // Signing in needs no strength meter: its dictionaries are not loaded.
      expect(scriptsLoaded.filter((u) => /password-strength/.test(u))).toEqual([]);
    });

    it("signs up and shows the first API key once, with a copy button", async () => {
      await page.getByRole("link", { name: "Create an account" }).click();
      await page.waitForURL("**/signup");
      await page.getByLabel("E-mail").fill(email);
      await page.getByLabel("Password").fill("short");
      await page.getByRole("button", { name: "Create account" }).click();
      await page.getByText("Too short: use at least 8 characters.").waitFor();

      // The strength meter runs the server's own rule, whose dictionaries load in a chunk of their own
      // once a password is typed on this page, outside the initial bundle. Its message is the
      // password's description and a polite live region, so a screen reader hears why as it changes.
      const note = page.locator("#password-hint");
      await expect(page.getByLabel("Password").getAttribute("aria-describedby")).resolves.toBe(
        "password-hint",
      );
      await expect(note.getAttribute("aria-live")).resolves.toBe("polite");
      await page.getByLabel("Password").fill("12345678");
      const why = "This password is too weak: it is one of the ten most used passwords.";
      // The first estimate waits for the chunk and its dictionaries: on a loaded machine, seconds.
      await note.filter({ hasText: why }).waitFor({ timeout: 60_000 });
      await expect(page.getByTestId("password-strength").getAttribute("value")).resolves.toBe("1");
      expect(scriptsLoaded.filter((u) => /password-strength/.test(u))).toHaveLength(1);
      await page.getByLabel("Password").fill(email.split("@")[0]!.replace(/[^a-z0-9]/g, ""));
      await note.filter({ hasText: "made from your e-mail address" }).waitFor();
      // Sent anyway: the server refuses it for the same reason.
      await page.getByLabel("Password").fill("12345678");
      await page.getByRole("button", { name: "Create account" }).click();
      await page.getByRole("alert").filter({ hasText: "Check the highlighted fields." }).waitFor();
      await note.filter({ hasText: new RegExp(`^${why}`) }).waitFor();
      await expect(page.getByLabel("Password").getAttribute("aria-invalid")).resolves.toBe("true");
      await look(page, "sign-up");

      await page.getByLabel("Password").fill(password);
      await note.filter({ hasText: /^Strength: (Strong|Very strong)\.$/ }).waitFor();
      await page.getByRole("button", { name: "Create account" }).click();
      await page.getByRole("heading", { name: "Your account is ready" }).waitFor();
      apiKey = (await page.getByTestId("full-key").textContent()) ?? "";
      expect(apiKey).toMatch(/^kurz_live_[A-Za-z0-9]{32}$/);
      await page.getByRole("button", { name: /Copy key/ }).click();
      expect(await page.evaluate("navigator.clipboard.readText()")).toBe(apiKey);
      await look(page, "sign-up-key");

      await page.getByRole("button", { name: /open the dashboard/ }).click();
      await page.waitForURL("**/dashboard");
      await page.getByRole("heading", { name: "Overview" }).waitFor();
      // Shown once: nowhere in the dashboard afterwards, and the API works with it.
      expect(await page.content()).not.toContain(apiKey);
      const me = await fetch(`${web.stack.origin}/api/v1/account`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(me.status).toBe(200);
      await look(page, "overview-empty");
    });

    it("creates a link with every field and lists it", async () => {
      await openPage(page, "Links");
      await page.getByRole("heading", { name: "Links" }).waitFor();
      await page.getByText("No links yet.").waitFor();
      await look(page, "links-empty");

      await page.getByRole("button", { name: "Create link" }).first().click();
      const dialog = page.getByRole("dialog", { name: "Create link" });
      await dialog.getByLabel("Destination URL").fill(landing);
      await dialog.getByLabel("Custom alias (optional)").fill(`launch-${Date.now().toString(36)}`);
      await dialog.getByLabel("Title (optional)").fill("Launch announcement");
      // An expiry in the past is warned about before anything is saved.
      await dialog.getByLabel("Expires (optional)").fill("2020-01-01T10:00");
      await dialog.getByRole("button", { name: "Create link" }).click();
      await dialog.getByText(/expiry is in the past/).waitFor();
      await look(page, "links-create");
      // A year ahead (the field's local minutes): the link is followed below, so it must not expire.
      const yearAhead = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 16);
      await dialog.getByLabel("Expires (optional)").fill(yearAhead);
      await dialog.getByRole("button", { name: "Create link" }).click();
      await dialog.waitFor({ state: "detached" });

      const row = page.getByTestId("link-row").first();
      await row.getByText("Launch announcement").waitFor();
      shortUrl = (await row.getByRole("link").first().textContent()) ?? "";
      shortCode = shortUrl.split("/").pop() ?? "";
      expect(shortCode).toMatch(/^launch-/);
      shortUrl = `${web.stack.origin}/${shortCode}`;
      await look(page, "links");

      await row.getByLabel(`More actions for ${shortCode}`).click();
      await row.getByRole("button", { name: "QR code" }).click();
      const qr = page.getByRole("dialog", { name: `QR code for ${shortCode}` });
      await qr.getByRole("img").waitFor();
      // Its width once loaded (0 if it fails to), or -1 if it is still loading after 10 s.
      const width = await qr.getByRole("img").evaluate(
        (img) =>
          new Promise<number>((resolve) => {
            const i = img as unknown as {
              complete: boolean;
              naturalWidth: number;
              addEventListener(type: string, listener: () => void): void;
            };
            if (i.complete) return resolve(i.naturalWidth);
            i.addEventListener("load", () => resolve(i.naturalWidth));
            i.addEventListener("error", () => resolve(0));
            setTimeout(() => resolve(-1), 10_000);
          }),
      );
      expect(width, "the QR image loads").toBeGreaterThan(0);
      await look(page, "links-qr");
      await qr.getByRole("button", { name: "Close" }).click();
    });

    it("counts a visitor's click from another browser and shows it on the link's chart", async () => {
      const visitor = await web.browser.newContext({ userAgent: VISITOR_UA });
      const tab = await visitor.newPage();
      await tab.goto(shortUrl);
      expect(tab.url()).toBe(landing);
      expect(await tab.title()).toBe("Launch");
      await visitor.close();

      await page
        .getByRole("link", { name: new RegExp(shortCode) })
        .first()
        .click();
      await page.waitForURL("**/dashboard/links/*");
      const chart = page.getByTestId("time-chart");
      await chart.waitFor();
      // Analytics counts the click a moment after the visit: once its API has it, the page shown again
      // has it too.
      const linkId = page.url().split("/").pop();
      await waitFor(
        async () => {
          const { body } = await getInPage<{
            data: { total_clicks: number; time_series: { count: number }[] };
          }>(page, `/api/v1/analytics/${linkId}`);
          return body.data.total_clicks >= 1 && body.data.time_series.some((d) => d.count >= 1);
        },
        { timeoutMs: 60_000, intervalMs: 250, description: "the visitor's click in the link's analytics" },
      );
      if (Number(await chart.getAttribute("data-total")) < 1) {
        await page.reload();
        await chart.waitFor();
      }
      expect(Number(await chart.getAttribute("data-total"))).toBe(1);
      expect(await page.getByTestId("stat-clicks").textContent()).toBe("1");
      // A plain link sends every click to its URL: nothing to compare, so no Destinations panel.
      expect(await page.getByRole("region", { name: "Destinations" }).count()).toBe(0);
      await look(page, "link");
    });

    it("shares chosen sections publicly, and the public page shows only those", async () => {
      await page.getByRole("switch", { name: "Share statistics publicly" }).check();
      const sections = page.getByRole("group", { name: "Shared sections" });
      await sections.waitFor();
      for (const name of [/Locations/, /Devices/, /Browsers/]) {
        await sections.getByRole("checkbox", { name }).uncheck();
        await page.waitForLoadState("networkidle");
      }
      // The fieldset is disabled while a save is under way: wait for the last one before reading the server.
      await expect.poll(() => sections.getByRole("checkbox", { name: /Overview/ }).isEnabled()).toBe(true);
      await expect(sections.getByRole("checkbox", { name: /Overview/ }).isChecked()).resolves.toBe(true);
      await expect(sections.getByRole("checkbox", { name: /Referrers/ }).isChecked()).resolves.toBe(true);
      await expect(sections.getByRole("checkbox", { name: /Browsers/ }).isChecked()).resolves.toBe(false);

      const linkId = page.url().split("/").pop();
      const stored = await fetch(`${web.stack.origin}/api/v1/links/${linkId}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      }).then(
        (r) =>
          r.json() as Promise<{ data: { analytics_public: boolean; analytics_shared_fields: string[] } }>,
      );
      expect(stored.data.analytics_public).toBe(true);
      expect(stored.data.analytics_shared_fields).toEqual(["overview", "referrers"]);

      const stranger = await web.browser.newContext({ viewport: DESKTOP, baseURL: web.stack.origin });
      const pub = await stranger.newPage();
      watchCsp(pub, cspViolations);
      // The sharing choice reaches the analytics service by the bus, a moment after it is saved: the
      // page is opened once the public API answers with the shared sections. Once a second, within the
      // client's public budget (60 a minute), which the page draws on too.
      const hiddenSections = [
        "Countries",
        "Cities",
        "Devices",
        "Operating systems",
        "Browsers",
        "Destinations",
      ];
      await waitFor(
        async () => {
          const res = await fetch(`${web.stack.origin}/api/v1/public/analytics/${shortCode}`);
          if (res.status !== 200) return false;
          const { data } = (await res.json()) as { data: { shared_fields: string[] } };
          return [...data.shared_fields].sort().join() === "overview,referrers";
        },
        { timeoutMs: 30_000, intervalMs: 1000, description: "the shared sections in the public analytics" },
      );
      await pub.goto(`/stats/${shortCode}`);
      await pub.getByRole("heading", { name: `Statistics for /${shortCode}` }).waitFor();
      await pub.getByTestId("time-chart").waitFor();
      expect(await pub.getByTestId("stat-clicks").textContent()).toBe("1");
      await pub.getByRole("region", { name: "Referrers" }).waitFor();
      for (const hidden of hiddenSections) {
        expect(await pub.getByRole("region", { name: hidden }).count(), hidden).toBe(0);
      }
      expect(await pub.getByText("Bot clicks").count()).toBe(0);
      await look(pub, "public-stats");

      await pub.goto("/stats/no-such-link");
      await pub.getByRole("heading", { name: "These statistics are not public" }).waitFor();
      await look(pub, "public-stats-404");
      await stranger.close();
    });

    it("revokes the key after confirmation, and the key then gets 401", async () => {
      await openPage(page, "API keys");
      const row = page.getByTestId("key-row").first();
      await row.getByText(apiKey.slice(0, 14)).waitFor();
      await look(page, "keys");

      await row.getByRole("button", { name: /Revoke/ }).click();
      const confirm = page.getByRole("dialog", { name: /Revoke/ });
      await look(page, "keys-revoke");
      await confirm.getByRole("button", { name: "Revoke key" }).click();
      await page.getByText("No active keys.").waitFor();

      const res = await fetch(`${web.stack.origin}/api/v1/account`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(res.status).toBe(401);
    });

    let secondKey = "";
    it("creates a key only with the password re-entered", async () => {
      await page.getByRole("button", { name: "Create key" }).click();
      const dialog = page.getByRole("dialog", { name: "Create API key" });
      await dialog.getByLabel("Name").fill("deploy script");
      await dialog.getByLabel("Your password").fill("not my password");
      await dialog.getByRole("button", { name: "Create key" }).click();
      await dialog.getByText("The current password is wrong").waitFor();
      await look(page, "keys-create-wrong-password");
      await dialog.getByLabel("Your password").fill(password);
      await dialog.getByRole("button", { name: "Create key" }).click();
      const shown = page.getByRole("dialog", { name: "Your new API key" });
      secondKey = (await shown.getByTestId("full-key").textContent()) ?? "";
      expect(secondKey).toMatch(/^kurz_live_[A-Za-z0-9]{32}$/);
      await shown.getByRole("button", { name: "Done" }).click();
      await page.getByTestId("key-row").getByText(secondKey.slice(0, 14)).waitFor();
    });

    it("shows the person's own account: the e-mail address, and the new password's meter", async () => {
      await openPage(page, "Account");
      await page.getByTestId("account-email").filter({ hasText: email }).waitFor();
      // The new password's meter: the account's own address counts against it.
      const newPassword = page.getByLabel("New password");
      await newPassword.fill(`${email.split("@")[0]!.replace(/[^a-z0-9]/g, "")}`);
      await page.locator("#new-password-hint").filter({ hasText: "made from your e-mail address" }).waitFor();
      await look(page, "account");
      await newPassword.fill("");
    });

    it("shows the workspace with its limit and usage, and renames it", async () => {
      await openPage(page, "General");
      await page.getByText(/1 of [\d,]+/).waitFor();
      expect(await page.getByTestId("account-plan").textContent()).toBe("free");
      expect(await page.getByTestId("account-rate-limit").textContent()).toMatch(
        /^60 a minute, 1,000 an hour$/,
      );
      const name = page.getByLabel("Workspace name");
      await name.fill("Launch team");
      await page.getByRole("form", { name: "Name" }).getByRole("button", { name: "Save" }).click();
      await page.getByRole("form", { name: "Name" }).getByText("Saved.").waitFor();
      const session = await getInPage<{ data: { workspaces: { name: string }[] } }>(
        page,
        "/api/v1/auth/session",
      );
      expect(session.body.data.workspaces.map((w) => w.name)).toEqual(["Launch team"]);
      await look(page, "workspace");
    });

    it("shows the plan and limits an operator set, after the operator raised them", async () => {
      const res = await fetch(`${web.stack.urls.management}/internal/admin/accounts`, {
        method: "PATCH",
        headers: { "content-type": "application/json", "x-kurz-admin-token": web.adminToken },
        body: JSON.stringify({
          email,
          status: "pro",
          link_limit: 5000,
          rate_limit_per_minute: 120,
          rate_limit_per_hour: 5000,
        }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      await page.reload();
      await page.getByTestId("account-plan").filter({ hasText: "pro" }).waitFor();
      await page.getByText("1 of 5,000").waitFor();
      expect(await page.getByTestId("account-rate-limit").textContent()).toBe("120 a minute, 5,000 an hour");
      await look(page, "workspace-pro");
      await openPage(page, "Account");
    });

    it("changes the password and, when asked, revokes every key", async () => {
      const form = page.getByRole("form", { name: "Change password" });
      await form.getByLabel("Current password").fill(password);
      await form.getByLabel("New password").fill("a new and longer passphrase");
      await form.getByLabel(/Also revoke every API key/).check();
      await form.getByRole("button", { name: "Change password" }).click();
      await page
        .getByText("Password changed. Your other sessions were signed out and 1 API key revoked.")
        .waitFor();
      password = "a new and longer passphrase";
      await look(page, "account-password-changed");
      const res = await fetch(`${web.stack.origin}/api/v1/account`, {
        headers: { authorization: `Bearer ${secondKey}` },
      });
      expect(res.status).toBe(401);
    });

    it("asks for an e-mail address change, and says plainly when the server sends no e-mail", async () => {
      const form = page.getByRole("form", { name: "Change e-mail address" });
      await form.getByLabel("New e-mail address").fill(`renamed-${email}`);
      await form.getByLabel("Current password").fill(password);
      await form.getByRole("button", { name: "Send confirmation link" }).click();
      await form.getByText(/needs outgoing e-mail/).waitFor();
      await page.getByTestId("account-email").filter({ hasText: email }).waitFor();
    });

    it("shows the overview with the click and the top link", async () => {
      await openPage(page, "Overview");
      await page.getByRole("radio", { name: "7 days" }).check();
      await page.getByTestId("total-clicks").filter({ hasText: "1" }).waitFor();
      // The one visitor who followed the link from the other browser, in the last 7 days.
      await page.getByTestId("unique-visitors").filter({ hasText: /^1$/ }).waitFor();
      await page.getByText("Launch announcement").waitFor();
      await look(page, "overview");
    });

    it("opens every page from its URL, marked in its group of the navigation; on a phone, from the menu by keyboard", async () => {
      // [URL, the page's heading, its entry in the navigation, whether it is a settings page]
      const pages = [
        ["/dashboard", "Overview", "Overview", false],
        ["/dashboard/links", "Links", "Links", false],
        ["/dashboard/campaigns", "Campaigns", "Campaigns", false],
        ["/dashboard/channels", "Channels", "Channels", false],
        ["/dashboard/overlays", "CTA overlays", "Overlays", false],
        ["/dashboard/account", "Account", "Account", true],
        ["/dashboard/workspace", "Workspace", "General", true],
        ["/dashboard/members", "Members", "Members", true],
        ["/dashboard/audit-log", "Audit log", "Audit log", true],
        ["/dashboard/keys", "API keys", "API keys", true],
        ["/dashboard/domains", "Branded domains", "Domains", true],
        ["/dashboard/webhooks", "Webhooks", "Webhooks", true],
        ["/dashboard/import", "Import links", "Import", true],
        ["/dashboard/export", "Export", "Export", true],
        ["/dashboard/sso", "Single sign-on", "Single sign-on", true],
      ] as const;
      const top = page.getByRole("navigation", { name: "Dashboard" });
      const settings = page.getByRole("navigation", { name: "Settings" });
      for (const [url, heading, entry, inSettings] of pages) {
        await page.goto(url);
        await page.getByRole("heading", { level: 1, name: heading, exact: true }).waitFor();
        if (inSettings) {
          expect(await top.getByRole("link", { name: "Settings" }).getAttribute("aria-current"), url).toBe(
            "true",
          );
          expect(await settings.getByRole("link", { name: entry }).getAttribute("aria-current"), url).toBe(
            "page",
          );
        } else {
          expect(await top.getByRole("link", { name: entry }).getAttribute("aria-current"), url).toBe("page");
          expect(await settings.count(), url).toBe(0);
        }
      }

      // Just above the width where the menu takes over, and wider, the sections sit beside the brand
      // and the workspace switcher without running under them.
      for (const width of [1010, 1100, DESKTOP.width]) {
        await page.setViewportSize({ width, height: DESKTOP.height });
        const overlap = await page.evaluate(`(() => {
          const links = [...document.querySelectorAll(".primary-nav .nav-link")];
          const who = document.querySelector(".topbar .who").getBoundingClientRect();
          const last = links[links.length - 1].getBoundingClientRect();
          return last.right > who.left || last.top !== links[0].getBoundingClientRect().top;
        })()`);
        expect(overlap, `top bar at ${width}px`).toBe(false);
      }

      await page.setViewportSize(PHONE);
      await page.goto("/dashboard/links");
      await page.getByRole("heading", { level: 1, name: "Links" }).waitFor();
      const menu = page.getByRole("button", { name: "Menu" });
      expect(await top.isVisible()).toBe(false);
      await menu.focus();
      await page.keyboard.press("Enter");
      expect(await menu.getAttribute("aria-expanded")).toBe("true");
      await top.getByRole("link", { name: "Settings" }).waitFor();
      expect(await seriousViolations(page), "axe with the menu open").toEqual([]);
      expect(await sidewaysScroll(page), "the open menu scrolls sideways").toEqual([]);
      await page.screenshot({ path: join(SHOTS, "menu-phone.png"), fullPage: true, animations: "disabled" });
      // Escape closes the menu and gives the focus back to its button.
      await page.keyboard.press("Tab");
      await page.keyboard.press("Escape");
      expect(await top.isVisible()).toBe(false);
      expect(await menu.evaluate((b) => b === b.ownerDocument.activeElement)).toBe(true);
      // Open again; the sections follow the button in the Tab order: Overview, Links, Campaigns.
      await page.keyboard.press("Enter");
      for (let i = 0; i < 3; i++) await page.keyboard.press("Tab");
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { level: 1, name: "Campaigns" }).waitFor();
      expect(await top.isVisible(), "the menu closes once a section is chosen").toBe(false);
      await page.setViewportSize(DESKTOP);
    });

    it("signs out, after which the dashboard asks to sign in again and then shows the page asked for", async () => {
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL("**/login");
      await page.goto("/dashboard/links");
      await page.waitForURL(/\/login\?next=/);
      // Signing in again leads back to the links, listed: the page had already asked for them (and
      // been refused) while the session check ran, and that refusal is not what it shows now.
      await page.getByLabel("E-mail").fill(email);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await page.waitForURL("**/dashboard/links");
      await page.getByTestId("link-row").first().waitFor();
      await expect(page.getByRole("alert").count()).resolves.toBe(0);
      expect(cspViolations).toEqual([]);
      console.log(
        `axe-core: no serious or critical violation on ${pagesChecked.length} pages: ${pagesChecked.join(", ")}`,
      );
    });

    it("lists the signed-in sessions and signs out everywhere, ending another browser's session too", async () => {
      const elsewhere = await fetch(`${web.stack.origin}/api/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password }),
      });
      expect(elsewhere.status).toBe(200);
      const cookie = (elsewhere.headers.get("set-cookie") ?? "").split(";")[0]!;
      await openPage(page, "Account");
      await page.getByRole("heading", { name: "Signed-in sessions" }).waitFor();
      await expect.poll(() => page.getByTestId("session-row").count()).toBe(2);
      await page.getByTestId("session-row").filter({ hasText: "This browser" }).waitFor();
      await look(page, "account-sessions");
      await page.getByRole("button", { name: "Sign out everywhere" }).click();
      await page.waitForURL("**/login");
      const after = await fetch(`${web.stack.origin}/api/v1/auth/session`, { headers: { cookie } });
      expect(after.status).toBe(401);
    });
  });
}
