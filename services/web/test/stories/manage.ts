// The dashboard's manage pages as a person uses them, in real Chromium through the stack's public origin:
// branded domains, campaigns, channels and CTA overlays, each create → listed → edit → delete. Every
// page is checked with axe-core and photographed at desktop and phone width (docs/dashboard.md), and
// what the dashboard shows is what the older API answers with a key (one store, no copies).
import { holdAdvisoryLock, waitFor } from "@kurz/testing";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BrowserFixture,
  checkPage,
  fetchWithKey,
  getInPage,
  openDashboard,
  openPage,
  seriousViolations,
  signUpThroughApi,
  VISITOR_UA,
} from "../browser.ts";

const unique = `${process.pid}${Date.now().toString(36)}`;
/** Management's outbox relay publishes only while no one else holds this advisory lock (its outbox.ts). */
const RELAY_LOCK = 727_001;

export function manageStory(web: BrowserFixture): void {
  describe("the manage pages", () => {
    let owner: BrowserContext;
    let page: Page;
    let apiKey = "";
    const cspViolations: string[] = [];

    const look = (name: string) => checkPage(page, name);
    /** The older API with the account's key: what a script sees. */
    const legacy = async (path: string, init: RequestInit = {}) => {
      const res = await fetch(`${web.stack.origin}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      });
      expect(res.status, path).toBe(200);
      return (await res.json()) as { data: Record<string, { id: number; name?: string }[]> };
    };
    const v1 = async (path: string, body: unknown) => {
      const res = await fetchWithKey(web, apiKey, "POST", path, body);
      expect(res.status, path).toBe(201);
      return ((await res.json()) as { data: { id: string; short_code: string } }).data;
    };
    const nav = async (label: string, heading: string) => {
      await openPage(page, label);
      await page.getByRole("heading", { level: 1, name: heading }).waitFor();
    };

    let links: { id: string; short_code: string }[] = [];

    beforeAll(async () => {
      owner = await web.newOwner();
      apiKey = await signUpThroughApi(owner, `grace-${unique}@example.com`);
      links = [
        await v1("/api/v1/links", { url: "https://example.com/a", title: "Variant A" }),
        await v1("/api/v1/links", { url: "https://example.com/b", title: "Variant B" }),
      ];
      page = await openDashboard(owner, cspViolations);
    });
    afterAll(() => owner?.close());

    it("branded domains: add, publish the TXT record, verify (failed, then verified), edit redirects, delete with its links", async () => {
      const host = `go.brand-${unique}.test`;
      await nav("Domains", "Branded domains");
      await page.getByText("No branded domains yet.").waitFor();
      await page.getByRole("button", { name: "Add domain" }).first().click();
      const add = page.getByRole("dialog", { name: "Add branded domain" });
      await add.getByLabel("Domain").fill(`https://${host}/some/path`);
      await add.getByRole("button", { name: "Add domain" }).click();
      await add.getByRole("alert").waitFor();
      await add.getByLabel("Domain").fill(`https://${host}`);
      await add.getByLabel("Root redirect (optional)").fill("https://brand.example/");
      await add.getByRole("button", { name: "Add domain" }).click();
      const added = page.getByRole("dialog", { name: `Verify ${host}` });
      await added.getByText(`_kurz-verify.${host}`).waitFor();
      const value = (await added.locator("dd code").nth(2).textContent()) ?? "";
      expect(value).toMatch(/^kurz-verify=/);
      await added.getByRole("button", { name: "Copy value" }).click();
      expect(await page.evaluate("navigator.clipboard.readText()")).toBe(value);
      await added.getByRole("button", { name: "Done" }).click();

      const row = page.getByTestId("domain-row").filter({ hasText: host });
      await row.getByText("Pending").waitFor();
      await row.getByText("last checked Never").waitFor();
      // Not published yet: the check fails and says when it ran.
      await row.getByRole("button", { name: `Verify ${host}` }).click();
      await row.getByText("Failed", { exact: true }).waitFor();
      expect(await row.getByText(/last checked Never/).count()).toBe(0);
      await look("domains");

      await web.dns.setTxt(`_kurz-verify.${host}`, [value]);
      await row.getByRole("button", { name: `Verify ${host}` }).click();
      await row.getByText("Verified", { exact: true }).waitFor();
      const listed = await legacy("/api/domains");
      expect(listed.data.domains).toMatchObject([{ domain: `https://${host}`, status: "verified" }]);

      // A link on the verified domain, made in the link form; the links table filters by domain.
      await nav("Links", "Links");
      await page.getByRole("button", { name: "Create link" }).first().click();
      const create = page.getByRole("dialog", { name: "Create link" });
      await create.getByLabel("Destination URL").fill("https://brand.example/offer");
      await create.getByLabel("Domain").selectOption(host);
      await create.getByRole("button", { name: "Create link" }).click();
      await create.waitFor({ state: "detached" });
      await page
        .getByTestId("link-row")
        .filter({ hasText: `${host}/` })
        .waitFor();
      await page.getByLabel("Domain").selectOption(host);
      await page.waitForURL(`**/dashboard/links?domain=${host}`);
      await page.getByTestId("link-row").filter({ hasText: "Variant A" }).waitFor({ state: "detached" });
      await page
        .getByTestId("link-row")
        .filter({ hasText: `${host}/` })
        .waitFor();
      expect(await page.getByTestId("link-row").count()).toBe(1);
      await look("links-by-domain");
      await nav("Domains", "Branded domains");

      await row.getByRole("button", { name: `Edit redirects of ${host}` }).click();
      const edit = page.getByRole("dialog", { name: `Redirects of ${host}` });
      expect(await edit.getByLabel("Root redirect (optional)").inputValue()).toBe("https://brand.example/");
      await edit.getByLabel("Not-found redirect (optional)").fill("https://brand.example/missing");
      await edit.getByRole("button", { name: "Save" }).click();
      await row.getByText("https://brand.example/missing").waitFor();

      // Deleting the domain deletes its link: the confirmation says so, with the count.
      await row.getByText("· 1 link ·").waitFor();
      const branded = (await legacy("/api/domains")).data.domains as unknown as { links: number }[];
      expect(branded).toMatchObject([{ links: 1 }]);
      await row.getByRole("button", { name: `Delete ${host}` }).click();
      const confirm = page.getByRole("dialog", { name: `Delete ${host}?` });
      await confirm.getByText("Its 1 link will be deleted too").waitFor();
      await look("domain-delete");
      await confirm.getByRole("button", { name: "Delete domain" }).click();
      await page.getByText(`Deleted ${host} and its 1 link.`).waitFor();
      await page.getByText("No branded domains yet.").waitFor();
      expect((await legacy("/api/domains")).data.domains).toEqual([]);
      await nav("Links", "Links");
      // The table shows its cached rows, then the refetch the delete asked for drops the branded link.
      await page
        .getByTestId("link-row")
        .filter({ hasText: `${host}/` })
        .waitFor({ state: "detached" });
      await page.getByTestId("link-row").filter({ hasText: "Variant A" }).waitFor();
      const all = await fetch(`${web.stack.origin}/api/v1/links?limit=100`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      const rows = ((await all.json()) as { data: { domain: string | null }[] }).data;
      expect(rows.filter((l) => l.domain === host)).toEqual([]);
    });

    it("campaigns: create with a rotator, copy its URLs, assign links with weights, edit, remove, delete", async () => {
      const slug = `spring-${unique}`;
      await nav("Campaigns", "Campaigns");
      await page.getByText("No campaigns yet.").waitFor();
      await page.getByRole("button", { name: "Create campaign" }).first().click();
      const create = page.getByRole("dialog", { name: "Create campaign" });
      await create.getByLabel("Name").fill("Spring sale");
      await create.getByLabel("Rotator slug (optional)").fill(slug);
      await create.getByRole("button", { name: "Create campaign" }).click();
      const row = page.getByTestId("campaign-row").filter({ hasText: "Spring sale" });
      await row.getByText("Private").waitFor();
      await row.getByText(`/r/${slug}`).waitFor();
      await row.getByRole("button", { name: "Copy rotator URL" }).click();
      expect(await page.evaluate("navigator.clipboard.readText()")).toMatch(new RegExp(`/r/${slug}$`));
      await row.getByText("Copied").waitFor({ state: "hidden" });

      await row.getByRole("button", { name: "Links and weights of Spring sale" }).click();
      const members = page.getByRole("dialog", { name: "Links in Spring sale" });
      await members.getByText("No links in this campaign.").waitFor();
      for (const l of links) {
        await members.getByLabel("Add a link").selectOption(l.id);
        await members.getByRole("button", { name: "Add to campaign" }).click();
        await members.getByTestId("campaign-link").filter({ hasText: l.short_code }).waitFor();
      }
      const weight = members.getByLabel(`Weight of ${links[0]!.short_code}`);
      await weight.fill("4");
      await weight.press("Tab");
      await members.getByText("80%").waitFor();
      await members.getByText("20%").waitFor();
      await look("campaign-links");
      const byKey = (await legacy(`/api/campaign/${await campaignId("Spring sale")}/links`)) as unknown as {
        data: { links: { link_id: string; weight: number }[] };
      };
      expect(byKey.data.links.map((l) => [l.link_id, l.weight])).toEqual([
        [links[0]!.id, 4],
        [links[1]!.id, 1],
      ]);
      // The rotator follows the weights: a link is one of the campaign's.
      const follow = await fetch(`${web.stack.origin}/r/${slug}`, {
        redirect: "manual",
        headers: { "user-agent": VISITOR_UA },
      });
      const followed = follow.headers.get("location");
      expect(["https://example.com/a", "https://example.com/b"]).toContain(followed);
      // The click is counted for the link it went to; the analytics pipeline is asynchronous, so once
      // its API has the click, the range is re-picked (a new query, fetched anew) to show it.
      const counted = links[followed === "https://example.com/a" ? 0 : 1]!;
      const cid = await campaignId("Spring sale");
      await waitFor(
        async () => {
          const { body } = await getInPage<{ data?: { total_clicks: number } }>(
            page,
            `/api/v1/analytics/campaigns/${cid}`,
          );
          return body.data?.total_clicks === 1;
        },
        {
          timeoutMs: 45_000,
          intervalMs: 250,
          description: "the rotator's click in the campaign's analytics",
        },
      );
      await members.getByLabel("7 days").check();
      // What it shows instead, if it never shows the click, is the expectation's failure below.
      await members
        .getByTestId("campaign-clicks")
        .filter({ hasText: /total: 1$/ })
        .waitFor()
        .catch(() => undefined);
      const direct = await fetch(`${web.stack.origin}/api/v1/analytics/campaigns/${cid}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      }).then((r) => r.text());
      expect(await members.getByTestId("campaign-clicks").textContent(), direct).toBe("Clicks in total: 1");
      const countedRow = members.getByTestId("campaign-link").filter({ hasText: counted.short_code });
      expect(await countedRow.locator("td.col-num").textContent()).toBe("1");

      await members.getByRole("button", { name: `Remove ${links[1]!.short_code}` }).click();
      await members
        .getByTestId("campaign-link")
        .filter({ hasText: links[1]!.short_code })
        .waitFor({ state: "detached" });
      await members.getByText("100%").waitFor();
      await members.getByRole("button", { name: "Done" }).click();
      await look("campaigns");

      await row.getByRole("button", { name: "Edit Spring sale" }).click();
      const edit = page.getByRole("dialog", { name: "Edit Spring sale" });
      expect(await edit.getByLabel("Rotator slug (optional)").inputValue()).toBe(slug);
      await edit.getByLabel("Name").fill("Summer sale");
      await edit.getByLabel("Public list page").check();
      await edit.getByRole("button", { name: "Save" }).click();
      const renamed = page.getByTestId("campaign-row").filter({ hasText: "Summer sale" });
      await renamed.getByText("Public", { exact: true }).waitFor();
      expect((await legacy("/api/campaigns")).data.campaigns).toMatchObject([
        { name: "Summer sale", public: true },
      ]);

      await renamed.getByRole("button", { name: "Delete Summer sale" }).click();
      await page
        .getByRole("dialog", { name: "Delete Summer sale?" })
        .getByRole("button", { name: "Delete campaign" })
        .click();
      await page.getByText("No campaigns yet.").waitFor();
      expect((await legacy("/api/campaigns")).data.campaigns).toEqual([]);
    });

    it("campaigns: opened before analytics has heard of its links, the dialog shows them with no clicks, then catches up", async () => {
      // Analytics learns a campaign's links from management's events; holding the relay keeps them in
      // the outbox, so the dialog opens in the moment between an assignment and its event, for certain.
      const slug = `autumn-${unique}`;
      const lock = await holdAdvisoryLock(web.stack.databaseUrl, RELAY_LOCK);
      let held = true;
      const release = async () => {
        if (held) await lock.release();
        held = false;
      };
      let id = 0;
      try {
        await legacy("/api/campaign/add", {
          method: "POST",
          body: JSON.stringify({ name: "Autumn sale", slug }),
        });
        id = await campaignId("Autumn sale");
        for (const l of links) await legacy(`/api/campaign/${id}/assign/${l.id}`, { method: "POST" });
        const direct = await fetch(`${web.stack.origin}/api/v1/analytics/campaigns/${id}`, {
          headers: { authorization: `Bearer ${apiKey}` },
        });
        expect(direct.status, "analytics has not heard of the campaign").toBe(404);
        // A visitor follows the rotator meanwhile; the link's own analytics count it at once. The links
        // have clicks of the tests before this one: the campaign's are all of theirs, one more.
        const clicksOf = async (linkId: string) => {
          const res = await fetch(`${web.stack.origin}/api/v1/analytics/${linkId}`, {
            headers: { authorization: `Bearer ${apiKey}` },
          });
          return ((await res.json()) as { data: { total_clicks: number } }).data.total_clicks;
        };
        const before = await Promise.all(links.map((l) => clicksOf(l.id)));
        const follow = await fetch(`${web.stack.origin}/r/${slug}`, {
          redirect: "manual",
          headers: { "user-agent": VISITOR_UA },
        });
        const countedAt = follow.headers.get("location") === "https://example.com/a" ? 0 : 1;
        const after = before.map((n, i) => (i === countedAt ? n + 1 : n));
        await waitFor(async () => (await clicksOf(links[countedAt]!.id)) === after[countedAt], {
          timeoutMs: 45_000,
          intervalMs: 500,
          description: "the rotator's click in the link's analytics",
        });

        await nav("Overview", "Overview");
        await nav("Campaigns", "Campaigns");
        const row = page.getByTestId("campaign-row").filter({ hasText: "Autumn sale" });
        await row.getByRole("button", { name: "Links and weights of Autumn sale" }).click();
        const members = page.getByRole("dialog", { name: "Links in Autumn sale" });
        for (const l of links) {
          const member = members.getByTestId("campaign-link").filter({ hasText: l.short_code });
          await member.locator("td.col-num", { hasText: /^0$/ }).waitFor();
        }
        await members
          .getByTestId("campaign-clicks")
          .filter({ hasText: /total: 0$/ })
          .waitFor();
        expect(await members.getByRole("alert").count(), "no error in the dialog").toBe(0);
        expect(await seriousViolations(page), "axe on the campaign's links").toEqual([]);

        // The events go out: the open dialog asks again until analytics counts the campaign's links.
        await release();
        const total = after.reduce((a, b) => a + b, 0);
        await members
          .getByTestId("campaign-clicks")
          .filter({ hasText: new RegExp(`total: ${total}$`) })
          .waitFor({ timeout: 45_000 });
        expect(await members.locator("td.col-num").allTextContents()).toEqual(after.map(String));
        expect(await members.getByRole("alert").count(), "no error in the dialog").toBe(0);
        await members.getByRole("button", { name: "Done" }).click();
      } finally {
        await release();
        if (id) await legacy(`/api/campaign/${id}/delete`, { method: "DELETE" });
      }
      await nav("Overview", "Overview");
      await nav("Campaigns", "Campaigns");
      await page.getByText("No campaigns yet.").waitFor();
    });

    async function campaignId(name: string): Promise<number> {
      const list = await legacy("/api/campaigns");
      return list.data.campaigns!.find((c) => c.name === name)!.id;
    }

    it("channels: create, assign links, open the links table filtered by it, rename, delete", async () => {
      // One made with the key shows up in the dashboard: one store for both.
      await legacy("/api/channel/add", { method: "POST", body: JSON.stringify({ name: "From a script" }) });
      await nav("Channels", "Channels");
      await page.getByTestId("channel-row").filter({ hasText: "From a script" }).waitFor();
      await page.getByRole("button", { name: "Create channel" }).first().click();
      const create = page.getByRole("dialog", { name: "Create channel" });
      await create.getByLabel("Name").fill("Newsletter");
      await create.getByLabel("Description (optional)").fill("Monthly mailing");
      await create.getByLabel("Starred").check();
      await create.getByRole("button", { name: "Create channel" }).click();
      const row = page.getByTestId("channel-row").filter({ hasText: "Newsletter" });
      await row.getByText("Monthly mailing").waitFor();
      await row.getByText("Starred").waitFor();
      await look("channels");

      await row.getByRole("button", { name: "Assign links to Newsletter" }).click();
      const members = page.getByRole("dialog", { name: "Links in Newsletter" });
      await members.getByText("No links in this channel.").waitFor();
      await members.getByLabel("Add a link").selectOption(links[0]!.id);
      await members.getByRole("button", { name: "Add to channel" }).click();
      await members
        .getByTestId("channel-link")
        .filter({ hasText: links[0]!.short_code })
        .waitFor()
        .catch(async (err: unknown) => {
          throw new Error(`${String(err)}\n${await members.textContent()}`);
        });
      await look("channel-links");
      await members.getByRole("button", { name: "Done" }).click();

      await row.getByRole("link", { name: "View links of Newsletter" }).click();
      await page.waitForURL(/\/dashboard\/links\?channel=\d+$/);
      await page.getByRole("heading", { level: 1, name: "Links" }).waitFor();
      // Only the channel's link, and the filter says which channel.
      await page.getByTestId("link-row").filter({ hasText: links[0]!.short_code }).waitFor();
      expect(await page.getByTestId("link-row").count()).toBe(1);
      expect(await page.getByLabel("Channel").locator("option:checked").textContent()).toBe("Newsletter");
      await look("links-by-channel");

      await nav("Channels", "Channels");
      await row.getByRole("button", { name: "Edit Newsletter" }).click();
      const edit = page.getByRole("dialog", { name: "Edit Newsletter" });
      await edit.getByLabel("Name").fill("Weekly letter");
      await edit.getByRole("button", { name: "Save" }).click();
      const renamed = page.getByTestId("channel-row").filter({ hasText: "Weekly letter" });
      await renamed.waitFor();
      expect((await legacy("/api/channels")).data.channels!.map((c) => c.name).sort()).toEqual([
        "From a script",
        "Weekly letter",
      ]);

      await renamed.getByRole("button", { name: "Delete Weekly letter" }).click();
      await page
        .getByRole("dialog", { name: "Delete Weekly letter?" })
        .getByRole("button", { name: "Delete channel" })
        .click();
      await renamed.waitFor({ state: "detached" });
      expect((await legacy("/api/channels")).data.channels!.map((c) => c.name)).toEqual(["From a script"]);
    });

    it("overlays: create a message and a contact overlay, edit, list a submission, export CSV, delete", async () => {
      await nav("Overlays", "CTA overlays");
      await page.getByText("No overlays yet.").waitFor();
      await page.getByRole("button", { name: "Create overlay" }).first().click();
      let form = page.getByRole("dialog", { name: "Create overlay" });
      await form.getByRole("textbox", { name: "Name" }).fill("Launch banner");
      await form.getByLabel("Text", { exact: true }).fill("We launched!");
      await form.getByLabel("Button label").fill("Read more");
      await form.getByLabel("Button URL").fill("https://example.com/news");
      await form.getByLabel("Position").selectOption("top");
      await look("overlays-create");
      await form.getByRole("button", { name: "Create overlay" }).click();
      const banner = page.getByTestId("overlay-row").filter({ hasText: "Launch banner" });
      await banner.getByText("Top").waitFor();

      await page.getByRole("button", { name: "Create overlay" }).first().click();
      form = page.getByRole("dialog", { name: "Create overlay" });
      await form.getByLabel("Contact form").check();
      await form.getByRole("textbox", { name: "Name" }).fill("Talk to sales");
      await form.getByLabel("Text", { exact: true }).fill("Leave your details");
      await form.getByLabel("Phone").check();
      await form.getByRole("button", { name: "Create overlay" }).click();
      const contact = page.getByTestId("overlay-row").filter({ hasText: "Talk to sales" });
      await contact.getByText("Contact").waitFor();
      await look("overlays");

      await banner.getByRole("button", { name: "Edit Launch banner" }).click();
      const edit = page.getByRole("dialog", { name: "Edit Launch banner" });
      expect(await edit.getByLabel("Button URL").inputValue()).toBe("https://example.com/news");
      await edit.getByLabel("Text", { exact: true }).fill("We launched today!");
      await edit.getByLabel("Position").selectOption("center");
      await edit.getByRole("button", { name: "Save" }).click();
      await banner.getByText("Center").waitFor();
      const cta = (await legacy("/api/overlay")).data.cta as unknown as {
        name: string;
        text: string;
        fields: string[];
      }[];
      expect(cta.find((o) => o.name === "Launch banner")?.text).toBe("We launched today!");
      expect(cta.find((o) => o.name === "Talk to sales")?.fields).toEqual([
        "name",
        "email",
        "phone",
        "message",
      ]);

      // A link's overlay is chosen in the link form.
      await nav("Links", "Links");
      const linkRow = page.getByTestId("link-row").filter({ hasText: links[1]!.short_code });
      await linkRow.waitFor();
      await linkRow.locator("summary").click();
      await linkRow.getByRole("button", { name: "Edit" }).click();
      const linkForm = page.getByRole("dialog", { name: `Edit ${links[1]!.short_code}` });
      await linkForm.getByLabel("CTA overlay (optional)").selectOption({ label: "Launch banner (message)" });
      await linkForm.getByRole("button", { name: "Save changes" }).click();
      await linkForm.waitFor({ state: "detached" });
      const withOverlay = await fetch(`${web.stack.origin}/api/v1/links/${links[1]!.id}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      const bannerId = cta.find((o) => o.name === "Launch banner") as unknown as { id: number };
      expect(((await withOverlay.json()) as { data: { overlay_id: number } }).data.overlay_id).toBe(
        bannerId.id,
      );
      await nav("Overlays", "CTA overlays");

      // A visitor sends the contact form of a link that carries the overlay.
      const contactId = cta.find((o) => o.name === "Talk to sales") as unknown as { id: number };
      const link = await v1("/api/v1/links", { url: "https://example.com/c", overlay_id: contactId.id });
      const sent = await fetch(`${web.stack.origin}/${link.short_code}`, {
        method: "POST",
        headers: { "user-agent": VISITOR_UA, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ name: "Ada", email: "ada@example.com", message: "Call me" }).toString(),
      });
      expect(sent.status).toBe(200);

      await contact.getByRole("button", { name: "Submissions of Talk to sales" }).click();
      const subs = page.getByRole("dialog", { name: "Submissions of Talk to sales" });
      const sub = subs.getByTestId("submission-row");
      await sub.getByText("ada@example.com").waitFor();
      expect(await sub.count()).toBe(1);
      await look("overlay-submissions");
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        subs.getByRole("link", { name: "Export CSV" }).click(),
      ]);
      const csv = await (await download.createReadStream()).toArray();
      expect(Buffer.concat(csv).toString("utf8")).toContain('"ada@example.com"');
      await subs.getByRole("button", { name: "Done" }).click();

      for (const name of ["Launch banner", "Talk to sales"]) {
        await page.getByRole("button", { name: `Delete ${name}` }).click();
        await page
          .getByRole("dialog", { name: `Delete ${name}?` })
          .getByRole("button", { name: "Delete overlay" })
          .click();
        await page.getByTestId("overlay-row").filter({ hasText: name }).waitFor({ state: "detached" });
      }
      await page.getByText("No overlays yet.").waitFor();
      expect((await legacy("/api/overlay")).data.cta).toEqual([]);
    });

    it("loaded every page under the strict CSP without a violation", () => {
      expect(cspViolations).toEqual([]);
    });
  });
}
