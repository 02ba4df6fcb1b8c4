// The audit log in the dashboard, as an owner reads it in real Chromium: changes made with a key and
// in the browser are listed newest first with who made them and from where; the "What" filter narrows
// the list, "Load more" pages back by cursor, and "Download CSV" saves the matches. A viewer is not
// offered the page. Checked with axe-core and photographed at desktop and phone width.
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
} from "../browser.ts";

const stamp = `${process.pid}${Date.now().toString(36)}`;

export function auditLogStory(web: BrowserFixture): void {
  describe("audit log: changes listed, filtered, paged and downloaded", () => {
    let owner: BrowserContext;
    let page: Page;
    let key = "";
    const cspViolations: string[] = [];
    const ownerEmail = `audra-${stamp}@example.com`;
    const rows = () => page.getByTestId("audit-row");

    const api = (method: string, path: string, body?: unknown) =>
      fetchWithKey(web, key, method, `/api/v1${path}`, body, { "user-agent": "curl/8.4.0" });

    beforeAll(async () => {
      owner = await web.newOwner();
      key = await signUpThroughApi(owner, ownerEmail);
      // Enough changes for more than one page (50 events a page).
      const bulk = await api("POST", "/links/bulk", {
        links: Array.from({ length: 50 }, (_, i) => ({
          url: `https://example.com/audit/${i}`,
          title: `Audit ${i}`,
        })),
      });
      expect(bulk.status).toBe(201);
      const one = await api("POST", "/links", { url: "https://example.com/launch", title: "Launch" });
      expect(one.status).toBe(201);
      const { data } = (await one.json()) as { data: { id: string } };
      expect((await api("PATCH", `/links/${data.id}`, { title: "Launch day" })).status).toBe(200);
      page = await openDashboard(owner, cspViolations);
    });
    afterAll(async () => {
      await owner?.close();
    });

    it("lists the changes newest first, with the key or person who made them", async () => {
      // A change with the session too, as the Account page makes it.
      const renamed = await owner.request.patch(`/api/v1/account`, {
        data: { default_expiry_hours: 48 },
        headers: { "x-csrf-token": await csrfOf(owner) },
      });
      expect(renamed.status()).toBe(200);
      await openPage(page, "Audit log");
      await page.getByRole("heading", { level: 1, name: "Audit log" }).waitFor();
      await expect.poll(() => rows().count()).toBe(50);
      const first = rows().first();
      await expect.poll(() => first.textContent()).toContain("workspace.updated");
      expect(await first.textContent()).toContain(ownerEmail);
      const second = rows().nth(1);
      expect(await second.textContent()).toContain("link.updated");
      expect(await second.textContent()).toContain("API key");
      expect(await second.textContent()).toContain("curl");
      await checkPage(page, "audit-log");
    });

    it("loads older events by cursor, and filters by what changed", async () => {
      await page.getByRole("button", { name: "Load more" }).click();
      await expect.poll(() => rows().count()).toBeGreaterThan(50);
      const texts = await rows().allTextContents();
      expect(new Set(texts).size).toBe(texts.length);
      await expect.poll(() => page.getByRole("button", { name: "Load more" }).count()).toBe(0);
      expect(texts.at(-1)).toContain("workspace.created");

      await page.getByLabel("What").selectOption("session");
      await expect.poll(() => rows().count()).toBe(1);
      expect(await rows().first().textContent()).toContain("session.signed_in");
      await checkPage(page, "audit-log-filtered");
    });

    it("downloads the matching events as CSV", async () => {
      const download = page.waitForEvent("download");
      await page.getByRole("link", { name: "Download CSV" }).click();
      const file = await (await download).path();
      const csv = readFileSync(file, "utf8");
      const lines = csv.trim().split("\r\n");
      expect(lines[0]).toMatch(/^id,occurred_at,actor_type,actor_id,actor_label,action,/);
      expect(lines).toHaveLength(2);
      expect(lines[1]).toContain("session.signed_in");
      expect(cspViolations).toEqual([]);
    });
  });
}

/** The session's CSRF token, as the dashboard reads it. */
async function csrfOf(context: BrowserContext): Promise<string> {
  const res = await context.request.get("/api/v1/auth/session");
  return ((await res.json()) as { data: { csrf_token: string } }).data.csrf_token;
}
