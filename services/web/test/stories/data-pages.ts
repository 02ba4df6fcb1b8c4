// Webhooks, import and export in the dashboard, as a person uses them, in real Chromium
// through the stack's public origin: add a webhook endpoint (a receiver on loopback, allowed by
// WEBHOOK_ALLOW_HOSTS as in tests/security/webhooks.test.ts), keep its secret, create a link and watch
// the signed delivery arrive and appear in the log; manage the endpoint; import a CSV and watch its
// progress reach 100%; import a Kutt export and finish its password-protected link (set its password,
// activate it); import a YOURLS file whose codes are Kurz's own paths, renamed with a prefix or kept on
// a verified branded domain; download the links and analytics exports. Every page is checked with axe-core
// and photographed at desktop and phone width (docs/dashboard.md).
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IMPORT_RENAME_PREFIX_MAX_LENGTH } from "@kurz/contracts";
import { useHttpServer } from "@kurz/testing/use-stack";
import type { BrowserContext, Download, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BrowserFixture, checkPage, openDashboard, openPage, signUpThroughApi } from "../browser.ts";

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** Standard Webhooks: v1,<base64 HMAC-SHA256 of "id.timestamp.body"> under the secret's bytes. */
function signatureValid(secret: string, r: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key)
    .update(`${r.headers["webhook-id"]}.${r.headers["webhook-timestamp"]}.${r.body}`)
    .digest("base64");
  return String(r.headers["webhook-signature"])
    .split(" ")
    .some((s) => s === `v1,${expected}`);
}

export function dataPagesStory(web: BrowserFixture): void {
  describe("webhooks, import and export", () => {
    let owner: BrowserContext;
    let page: Page;
    const received: Received[] = [];
    const cspViolations: string[] = [];
    const pagesChecked: string[] = [];
    let files = "";
    const stamp = Date.now().toString(36);

    const look = async (p: Page, name: string) => {
      await checkPage(p, name);
      pagesChecked.push(name);
    };
    const nav = (name: string) => openPage(page, name);
    const saved = async (download: Download) => readFileSync((await download.path()) ?? "", "utf8");

    const receiver = useHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
        res.writeHead(204).end();
      });
    });
    let hookUrl = "";

    beforeAll(async () => {
      hookUrl = `${receiver().origin}/hook`;
      files = mkdtempSync(join(tmpdir(), "kurz-web-data-"));
      owner = await web.newOwner();
      await signUpThroughApi(owner, `hedy-${stamp}@example.com`);
      page = await openDashboard(owner, cspViolations);
    });
    afterAll(async () => {
      await owner?.close();
      if (files) rmSync(files, { recursive: true, force: true });
    });

    let secret = "";

    it("adds a webhook endpoint and shows its signing secret once, with a copy button", async () => {
      await nav("Webhooks");
      await page.getByRole("heading", { name: "Webhooks" }).waitFor();
      await page.getByText("No endpoints yet.").waitFor();
      await look(page, "webhooks-empty");

      await page.getByRole("button", { name: "Add endpoint" }).click();
      const dialog = page.getByRole("dialog", { name: "Add webhook endpoint" });
      // A private address outside the allowed hosts is refused by the API, and the form says why.
      await dialog.getByLabel("Endpoint URL").fill("http://10.0.0.1/hook");
      await dialog.getByRole("button", { name: "Create endpoint" }).click();
      await dialog.locator(".field-error, .error").first().waitFor();
      await look(page, "webhooks-create");

      await dialog.getByLabel("Endpoint URL").fill(hookUrl);
      await dialog.getByRole("checkbox", { name: /link\.deleted/ }).check();
      await dialog.getByLabel("Description (optional)").fill("CRM sync");
      await dialog.getByRole("button", { name: "Create endpoint" }).click();

      const reveal = page.getByRole("dialog", { name: "Endpoint created" });
      secret = (await reveal.getByTestId("webhook-secret").textContent()) ?? "";
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      await reveal.getByRole("button", { name: /Copy secret/ }).click();
      expect(await page.evaluate("navigator.clipboard.readText()")).toBe(secret);
      await look(page, "webhooks-secret");
      await reveal.getByRole("button", { name: "Done" }).click();

      const row = page.getByTestId("webhook-row");
      await row.getByRole("link", { name: hookUrl }).waitFor();
      await row.getByText("Enabled", { exact: true }).waitFor();
      expect(await row.textContent()).toContain("link.deleted");
      // Shown once: the list holds only its prefix.
      expect(await page.content()).not.toContain(secret);
      await look(page, "webhooks");
    });

    it("a link created in the dashboard is delivered, signed, and appears in the endpoint's log", async () => {
      await nav("Links");
      await page.getByRole("button", { name: "Create link" }).first().click();
      const dialog = page.getByRole("dialog", { name: "Create link" });
      await dialog.getByLabel("Destination URL").fill("https://example.com/hooked");
      await dialog.getByLabel("Custom alias (optional)").fill(`hooked-${stamp}`);
      await dialog.getByRole("button", { name: "Create link" }).click();
      await dialog.waitFor({ state: "detached" });

      await nav("Webhooks");
      await page.getByTestId("webhook-row").getByRole("link", { name: hookUrl }).click();
      await page.waitForURL("**/dashboard/webhooks/*");
      await page.getByRole("heading", { name: "Delivery log" }).waitFor();
      // The log refreshes itself; the delivery shows up delivered, with the receiver's 204.
      const delivery = page.getByTestId("delivery-row").filter({ hasText: "link.created" });
      await delivery.getByText("Delivered").waitFor({ timeout: 60_000 });
      expect(await delivery.locator("td").nth(2).textContent()).toBe("204");
      expect(await delivery.locator("td").nth(4).textContent()).toBe("1");

      const got = received.find((r) => r.body.includes(`hooked-${stamp}`));
      expect(got, "the receiver got the link.created event").toBeDefined();
      expect(JSON.parse(got!.body).type).toBe("link.created");
      expect(signatureValid(secret, got!)).toBe(true);
      await look(page, "webhook-deliveries");
    });

    it("edits, rotates the secret after confirmation, disables and re-enables, then deletes the endpoint", async () => {
      await page
        .getByRole("navigation", { name: "Breadcrumb" })
        .getByRole("link", { name: "Webhooks" })
        .click();
      const row = page.getByTestId("webhook-row");

      await row.getByRole("button", { name: /^Edit/ }).click();
      const edit = page.getByRole("dialog", { name: "Edit webhook endpoint" });
      await edit.getByRole("checkbox", { name: /^click/ }).check();
      await edit.getByRole("button", { name: "Save changes" }).click();
      await edit.waitFor({ state: "detached" });
      await row.getByText("click", { exact: true }).waitFor();

      await row.getByRole("button", { name: /^Rotate secret/ }).click();
      const confirm = page.getByRole("dialog", { name: "Rotate the signing secret?" });
      await look(page, "webhooks-rotate");
      await confirm.getByRole("button", { name: "Rotate secret" }).click();
      const reveal = page.getByRole("dialog", { name: "The new signing secret" });
      const rotated = (await reveal.getByTestId("webhook-secret").textContent()) ?? "";
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(secret);
      await reveal.getByRole("button", { name: "Done" }).click();

      await row.getByRole("button", { name: /^Disable/ }).click();
      await row.getByText("Disabled", { exact: true }).waitFor();
      await row.getByRole("button", { name: /^Re-enable/ }).click();
      await row.getByText("Enabled", { exact: true }).waitFor();

      await row.getByRole("button", { name: /^Delete/ }).click();
      await page
        .getByRole("dialog", { name: "Delete this endpoint?" })
        .getByRole("button", { name: "Delete endpoint" })
        .click();
      await page.getByText("No endpoints yet.").waitFor();
    });

    it("imports a small CSV: the progress bar reaches 100% and the links appear in the links table", async () => {
      const csv = join(files, "links.csv");
      writeFileSync(
        csv,
        [
          "url,alias,title",
          `https://example.org/one,imp1-${stamp},Imported one`,
          `https://example.org/two,imp2-${stamp},Imported two`,
          `https://example.org/three,imp3-${stamp},Imported three`,
          `not a url,imp4-${stamp},Broken row`,
        ].join("\n"),
      );
      await nav("Import");
      await page.getByRole("heading", { name: "Import links" }).waitFor();
      await page.getByText("No imports yet.").waitFor();
      await look(page, "import-empty");

      await page.getByLabel("File").setInputFiles(csv);
      await page.getByLabel("Format").selectOption("csv");
      await page.getByRole("button", { name: "Start import" }).click();
      const job = page.getByTestId("import-job");
      await job.getByTestId("import-percent").filter({ hasText: "100%" }).waitFor({ timeout: 60_000 });
      await job.getByText("Completed", { exact: true }).waitFor();
      expect(await page.getByRole("progressbar").getAttribute("value")).toBe("100");
      expect(await job.getByTestId("count-total").textContent()).toBe("4");
      expect(await job.getByTestId("count-created").textContent()).toBe("3");
      expect(await job.getByTestId("count-failed").textContent()).toBe("1");
      await job.getByText(/Row 4:/).waitFor();

      const [errors] = await Promise.all([
        page.waitForEvent("download"),
        job.getByRole("link", { name: "Download refused rows (CSV)" }).click(),
      ]);
      const errorsCsv = await saved(errors);
      expect(errorsCsv.split("\n")[0]).toMatch(/row/);
      expect(errorsCsv).toContain(`imp4-${stamp}`);
      await page.getByTestId("import-row").first().getByText("Completed", { exact: true }).waitFor();
      await look(page, "import");

      await job.getByRole("link", { name: "See the links" }).click();
      await page.getByRole("heading", { name: "Links" }).waitFor();
      for (const n of [1, 2, 3])
        await page
          .getByTestId("link-row")
          .getByText(`Imported ${["one", "two", "three"][n - 1]}`)
          .waitFor();
      expect(
        await page
          .getByTestId("link-row")
          .filter({ hasText: `imp4-${stamp}` })
          .count(),
      ).toBe(0);
    });

    it("imports a Kutt export: its password-protected link waits, not served, until its password is set here", async () => {
      const locked = `kprot-${stamp}`;
      const kutt = join(files, "kutt.json");
      writeFileSync(
        kutt,
        JSON.stringify({
          data: [
            { address: `kopen-${stamp}`, target: "https://example.org/kutt-open", password: false },
            { address: locked, target: "https://example.org/kutt-locked", password: true },
          ],
          total: 2,
          limit: 10,
          skip: 0,
        }),
      );
      await nav("Import");
      await page.getByRole("heading", { name: "Import links" }).waitFor();
      await page.getByLabel("File").setInputFiles(kutt);
      await page.getByLabel("Format").selectOption("kutt");
      await page.getByRole("button", { name: "Start import" }).click();
      const job = page.getByTestId("import-job");
      await job.getByText("Completed", { exact: true }).waitFor({ timeout: 60_000 });
      expect(await job.getByTestId("count-created").textContent()).toBe("1");
      expect(await job.getByTestId("count-needs-attention").textContent()).toBe("1");
      expect(await job.getByTestId("count-failed").textContent()).toBe("0");

      const waiting = job.getByTestId("attention-row").filter({ hasText: locked });
      await waiting
        .getByText("protected in Kutt; Kutt does not export passwords: set a password and activate")
        .waitFor();
      await look(page, "import-attention");
      // Until then a visitor gets what any inactive link answers.
      const short = `${web.stack.origin}/${locked}`;
      expect((await fetch(short, { redirect: "manual" })).status).toBe(404);

      const finish = waiting.getByRole("button", { name: `Set password and activate ${locked}` });
      await finish.click();
      await waiting
        .getByRole("alert")
        .getByText(/Enter the password/)
        .waitFor();
      await waiting.getByLabel(`Password for ${locked}`).fill("kutt-secret-1");
      await finish.click();
      await waiting.getByText("Protected by its password.").waitFor();
      await look(page, "import-attention-done");

      const form = await fetch(short, { redirect: "manual" });
      expect(form.status).toBe(200);
      expect(await form.text()).toMatch(/password/i);
      const through = await fetch(short, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "password=kutt-secret-1",
      });
      expect(through.headers.get("location")).toBe("https://example.org/kutt-locked");

      // The past import's row reopens the job with its list, the link shown done.
      await page.reload();
      await page
        .getByTestId("import-row")
        .first()
        .getByRole("button", { name: /need you, show them/ })
        .click();
      await page.getByTestId("import-attention").getByText("Protected by its password.").waitFor();
    });

    it("imports a YOURLS file whose codes are Kurz's own paths: renamed with a prefix, or kept on a branded domain", async () => {
      const yourls = join(files, "yourls.csv");
      writeFileSync(
        yourls,
        [
          "keyword,url,title,timestamp,ip,clicks",
          "docs,https://example.org/yourls-docs,Our docs,2026-01-02 03:04:05,127.0.0.1,4",
          "Stats,https://example.org/yourls-stats,Stats,2026-01-02 03:04:05,127.0.0.1,0",
          `yl-${stamp},https://example.org/yourls-plain,Plain,2026-01-02 03:04:05,127.0.0.1,0`,
        ].join("\n"),
      );
      await nav("Import");
      await page.getByRole("heading", { name: "Import links" }).waitFor();
      const domainSelect = page.getByLabel("Domain");
      expect(await domainSelect.inputValue()).toBe("");
      expect(await domainSelect.locator("option").allTextContents()).toEqual([
        `${new URL(web.stack.origin).host} (default)`,
      ]);
      await page.getByLabel("File").setInputFiles(yourls);
      const pastImports = await page.getByTestId("import-row").count();
      const prefix = page.getByLabel("Prefix for Kurz's own paths (optional)");
      expect(await prefix.getAttribute("maxlength")).toBe(String(IMPORT_RENAME_PREFIX_MAX_LENGTH));
      // A prefix outside the rule is refused in the form, before anything is uploaded.
      await prefix.fill("old.v1");
      await page.getByRole("button", { name: "Start import" }).click();
      await page
        .getByText(`Up to ${IMPORT_RENAME_PREFIX_MAX_LENGTH} letters, digits, _ and -`)
        .and(page.locator(".field-error"))
        .waitFor();
      expect(await prefix.getAttribute("aria-invalid")).toBe("true");
      expect(await page.getByTestId("import-row").count()).toBe(pastImports);

      await prefix.fill("old");
      await page.getByText("A code such as docs becomes old-docs").waitFor();
      await page.getByRole("button", { name: "Start import" }).click();
      const job = page.getByTestId("import-job");
      await job.getByRole("heading", { name: "yourls.csv" }).waitFor();
      await job.getByText("Completed", { exact: true }).waitFor({ timeout: 60_000 });
      expect(await job.getByTestId("count-created").textContent()).toBe("3");
      expect(await job.getByTestId("count-failed").textContent()).toBe("0");
      expect(await job.getByTestId("count-renamed").textContent()).toBe("2");
      await job.getByText("Kurz's own paths kept as old-code").waitFor();
      expect(await job.getByTestId("renamed-rows").getByRole("listitem").allTextContents()).toEqual([
        "Row 1: docs is now old-docs",
        "Row 2: Stats is now old-Stats",
      ]);
      await page.getByTestId("import-row").first().getByText("Completed", { exact: true }).waitFor();
      await look(page, "import-renamed");
      const renamed = await fetch(`${web.stack.origin}/old-docs`, { redirect: "manual" });
      expect(renamed.headers.get("location")).toBe("https://example.org/yourls-docs");
      // `/docs` is still Kurz's own page.
      expect((await fetch(`${web.stack.origin}/docs`, { redirect: "manual" })).status).toBe(200);

      // A verified branded domain is offered, and keeps the codes as they are.
      const host = `go.import-${stamp}.test`;
      await nav("Domains");
      await page.getByRole("button", { name: "Add domain" }).first().click();
      const add = page.getByRole("dialog", { name: "Add branded domain" });
      await add.getByLabel("Domain").fill(`https://${host}`);
      await add.getByRole("button", { name: "Add domain" }).click();
      const added = page.getByRole("dialog", { name: `Verify ${host}` });
      await added.getByText(`_kurz-verify.${host}`).waitFor();
      await web.dns.setTxt(`_kurz-verify.${host}`, [
        (await added.locator("dd code").nth(2).textContent()) ?? "",
      ]);
      await added.getByRole("button", { name: "Done" }).click();
      const row = page.getByTestId("domain-row").filter({ hasText: host });
      await row.getByRole("button", { name: `Verify ${host}` }).click();
      await row.getByText("Verified", { exact: true }).waitFor();

      await nav("Import");
      await page.getByRole("heading", { name: "Import links" }).waitFor();
      await domainSelect.locator(`option[value="${host}"]`).waitFor({ state: "attached" });
      await domainSelect.selectOption(host);
      expect(await prefix.isDisabled()).toBe(true);
      await page.getByText("Not needed on a branded domain").waitFor();
      await page.getByLabel("File").setInputFiles(yourls);
      await look(page, "import-domain");
      await page.getByRole("button", { name: "Start import" }).click();
      await job.getByText(`Onto ${host}`).waitFor();
      await job.getByText("Completed", { exact: true }).waitFor({ timeout: 60_000 });
      // Codes are one namespace across the service: the plain code is there already, the two others are
      // kept as they are on the domain.
      expect(await job.getByTestId("count-created").textContent()).toBe("2");
      expect(await job.getByTestId("count-skipped").textContent()).toBe("1");
      expect(await job.getByTestId("renamed-rows").count()).toBe(0);
      const onDomain = await page.evaluate(async (h) => {
        const res = await fetch(`/api/v1/links?domain=${h}&per_page=10`);
        return ((await res.json()) as { data: { short_code: string }[] }).data
          .map((l) => l.short_code)
          .sort();
      }, host);
      expect(onDomain).toEqual(["Stats", "docs"]);
    });

    it("downloads the links as CSV and JSON, and the analytics as CSV", async () => {
      await nav("Export");
      await page.getByRole("heading", { name: "Export" }).waitFor();
      await look(page, "export");

      const [csvFile] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: "Download CSV" }).click(),
      ]);
      expect(csvFile.suggestedFilename()).toBe("links.csv");
      const csv = await saved(csvFile);
      expect(csv.split("\n")[0]).toContain("short_code");
      for (const code of [`hooked-${stamp}`, `imp1-${stamp}`, `imp2-${stamp}`, `imp3-${stamp}`])
        expect(csv).toContain(code);

      const [jsonFile] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: "Download JSON" }).click(),
      ]);
      const links = JSON.parse(await saved(jsonFile)) as { short_code: string }[];
      expect(links.map((l) => l.short_code).sort()).toEqual(
        [
          `hooked-${stamp}`,
          `imp1-${stamp}`,
          `imp2-${stamp}`,
          `imp3-${stamp}`,
          `kopen-${stamp}`,
          `kprot-${stamp}`,
          `yl-${stamp}`,
          "old-docs",
          "old-Stats",
          // on the branded domain
          "docs",
          "Stats",
        ].sort(),
      );

      await page.getByLabel("Rows").selectOption("country");
      const [analytics] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: "Download analytics CSV" }).click(),
      ]);
      expect(analytics.suggestedFilename()).toBe("analytics.csv");
      expect((await saved(analytics)).split("\n")[0]).toContain("value");

      // An impossible range is caught before any request.
      await page.getByLabel("From (optional)").fill("2026-02-01");
      await page.getByLabel("To (optional)").fill("2026-01-01");
      await page.getByText("The start must not be after the end.").waitFor();
      expect(await page.getByRole("button", { name: "Download analytics CSV" }).isDisabled()).toBe(true);

      expect(cspViolations).toEqual([]);
      console.log(
        `axe-core: no serious or critical violation on ${pagesChecked.length} pages: ${pagesChecked.join(", ")}`,
      );
    });
  });
}
