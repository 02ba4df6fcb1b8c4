// A broken link in the dashboard, as its owner meets it in real Chromium: a link whose destination (a
// real HTTP server on loopback) starts failing is checked twice with "Check now" and becomes broken;
// its page says so and where visitors go instead (its broken_url), the links list shows the badge and
// the "Broken" filter finds it, the overview counts it; broken_url is changed in the link's form; the
// destination answers again and the next check clears it all; the workspace's check interval is chosen
// on the account page. Every state is checked with axe-core and
// photographed at desktop and phone width (docs/dashboard.md, "Broken links").
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BrowserFixture,
  checkPage,
  getInPage,
  keyApi,
  openDashboard,
  openPage,
  signUpThroughApi,
} from "../browser.ts";

const unique = `${process.pid}${Date.now().toString(36)}`;

export function brokenLinksStory(web: BrowserFixture): void {
  describe("broken links: badge, filter, overview count, broken_url, check now", () => {
    let owner: BrowserContext;
    let page: Page;
    let apiKey = "";
    let destination: Server;
    let answer = 200;
    let destinationUrl = "";
    let linkId = "";
    const cspViolations: string[] = [];

    const api = keyApi(web, () => apiKey);

    beforeAll(async () => {
      destination = createServer((_req, res) => res.writeHead(answer).end());
      await new Promise<void>((r) => destination.listen(0, "127.0.0.1", r));
      destinationUrl = `http://127.0.0.1:${(destination.address() as AddressInfo).port}/pricing`;
      owner = await web.newOwner();
      apiKey = await signUpThroughApi(owner, `grace-${unique}@example.com`);
      // Two links made by a script: the one that will break, and one whose destination is never checked.
      await api("POST", "/api/v1/links", { url: "https://example.com/docs", title: "Docs" });
      const link = await api<{ id: string }>("POST", "/api/v1/links", {
        url: destinationUrl,
        title: "Pricing",
        broken_url: "https://example.com/pricing-moved",
      });
      linkId = link.id;
      page = await openDashboard(owner, cspViolations);
    });
    afterAll(async () => {
      await owner?.close();
      destination?.closeAllConnections();
      await new Promise<void>((r) => (destination ? destination.close(() => r()) : r()));
    });

    it("two failed checks in a row make the link broken, and its page says where visitors go", async () => {
      await page.goto(`/dashboard/links/${linkId}`);
      const card = page.getByRole("region", { name: "Destination health" });
      await card.getByText("Not checked yet").waitFor();
      answer = 503;
      const checkNow = card.getByRole("button", { name: "Check now" });
      await checkNow.click();
      await card.getByText("Server error (5xx) (503)", { exact: false }).waitFor();
      await card.getByText("1 (broken at 2)").waitFor();
      expect(await page.getByTestId("broken-badge").count()).toBe(0);
      await checkNow.click();
      await card.getByText("Broken since").waitFor();
      await page.getByTestId("broken-badge").waitFor();
      await page
        .getByTestId("broken-note")
        .getByRole("link", { name: "https://example.com/pricing-moved" })
        .waitFor();
      const link = await getInPage<{ data: { broken_since: string | null } }>(
        page,
        `/api/v1/links/${linkId}`,
      );
      expect(link.body.data.broken_since).not.toBeNull();
      await checkPage(page, "link-broken");
    });

    it("the links list shows the badge and the Broken filter finds only the broken link", async () => {
      await openPage(page, "Links");
      await page.getByRole("heading", { name: "Links", level: 1 }).waitFor();
      const rows = page.getByTestId("link-row");
      await rows.nth(1).waitFor();
      expect(await rows.count()).toBe(2);
      const pricing = rows.filter({ hasText: "Pricing" });
      expect(await pricing.getByText("Broken", { exact: true }).count()).toBe(1);
      expect(await rows.filter({ hasText: "Docs" }).getByText("Broken", { exact: true }).count()).toBe(0);
      await page.getByLabel("Status").selectOption({ label: "Broken" });
      await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(1);
      expect(await rows.first().textContent()).toContain("Pricing");
      await checkPage(page, "links-broken");
    });

    it("the overview counts the broken link", async () => {
      await openPage(page, "Overview");
      await page.getByRole("heading", { name: "Overview" }).waitFor();
      await expect.poll(() => page.getByTestId("broken-links").textContent(), { timeout: 10_000 }).toBe("1");
    });

    it("broken_url is changed in the link's form", async () => {
      await page.goto(`/dashboard/links/${linkId}`);
      await page.getByRole("button", { name: "Edit" }).click();
      const dialog = page.getByRole("dialog", { name: /^Edit / });
      const field = dialog.getByLabel("When the destination is broken (optional)");
      expect(await field.inputValue()).toBe("https://example.com/pricing-moved");
      await field.fill(`${web.stack.origin}/loop`);
      await dialog.getByRole("button", { name: "Save changes" }).click();
      // A Kurz short link is refused at the field, and nothing is saved.
      await dialog.getByText("Points at a Kurz short link", { exact: false }).waitFor();
      await field.fill("https://example.com/pricing-soon");
      await dialog.getByRole("button", { name: "Save changes" }).click();
      await dialog.waitFor({ state: "detached" });
      const saved = await api<{ broken_url: string | null }>("GET", `/api/v1/links/${linkId}`);
      expect(saved.broken_url).toBe("https://example.com/pricing-soon");
      await page
        .getByTestId("broken-note")
        .getByRole("link", { name: "https://example.com/pricing-soon" })
        .waitFor();
    });

    it("the destination answers again: the next check clears the badge and the count", async () => {
      answer = 200;
      const card = page.getByRole("region", { name: "Destination health" });
      await card.getByRole("button", { name: "Check now" }).click();
      await card.getByText("Answering", { exact: false }).waitFor();
      await page.getByTestId("broken-badge").waitFor({ state: "detached" });
      expect(await page.getByTestId("broken-note").count()).toBe(0);
      await openPage(page, "Overview");
      await expect.poll(() => page.getByTestId("broken-links").textContent(), { timeout: 10_000 }).toBe("0");
      expect(cspViolations).toEqual([]);
    });

    it("the workspace chooses how often destinations are checked", async () => {
      await openPage(page, "General");
      const select = page.getByLabel("Check destinations");
      expect(await select.inputValue()).toBe("daily");
      await select.selectOption("weekly");
      await page.getByText("Saved: the next checks follow it.").waitFor();
      const account = await api<{ health_check_interval?: string }>("GET", "/api/v1/account");
      expect(account.health_check_interval).toBe("weekly");
      await checkPage(page, "workspace-health-interval");
      expect(cspViolations).toEqual([]);
    });
  });
}
