// Smart links in the dashboard, as a marketer uses them in real Chromium: the account's default for
// forwarding query parameters; a link created with a UTM template applied, two targeting rules (one
// moved above the other) and a 75/25 split, checked with "try as" before it is saved; a social preview
// with an uploaded image and its card; the link edited again; its QR code with a logo in the centre,
// downloaded. What the dashboard saved is what the API answers with a key. Every state is checked with
// axe-core and photographed at desktop and phone width (docs/dashboard.md, "Smart destinations").
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BrowserFixture,
  checkPage,
  DESKTOP,
  getInPage,
  keyApi,
  openDashboard,
  openPage,
  PHONE,
  SHOTS,
  seriousViolations,
  sidewaysScroll,
  signUpThroughApi,
} from "../browser.ts";

const unique = `${process.pid}${Date.now().toString(36)}`;

interface LinkJson {
  id: string;
  short_code: string;
  original_url: string;
  rules: { when: Record<string, unknown>; url: string }[];
  split: { url: string; weight: number }[] | null;
  forward_query: boolean;
  max_clicks: number | null;
  expired_url: string | null;
  og: { title: string | null; description: string | null; image: string | null } | null;
}

/** A PNG of one colour drawn by the page's own canvas (`w`×`h`), as bytes. */
async function solidPng(page: Page, colour: string, w: number, h: number): Promise<Buffer> {
  const dataUrl = (await page.evaluate(`(() => {
    const canvas = document.createElement("canvas");
    canvas.width = ${w};
    canvas.height = ${h};
    const ctx = canvas.getContext("2d");
    ctx.fillStyle = ${JSON.stringify(colour)};
    ctx.fillRect(0, 0, ${w}, ${h});
    return canvas.toDataURL("image/png");
  })()`)) as string;
  return Buffer.from(dataUrl.split(",")[1]!, "base64");
}

/** The RGB of the centre pixel of the image at `src` (a blob: or data: URL), and its width. */
const centreOf = (page: Page, src: string) =>
  page.evaluate(`(async () => {
    const img = new Image();
    img.src = ${JSON.stringify(src)};
    await img.decode();
    const canvas = document.createElement("canvas");
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const ctx = canvas.getContext("2d");
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(img.naturalWidth >> 1, img.naturalHeight >> 1, 1, 1).data;
    return [d[0], d[1], d[2], img.naturalWidth];
  })()`) as Promise<number[]>;

/** Whether an <img> has loaded (its natural width), waiting up to 10 s. */
const loadedWidth = (img: Locator) =>
  img.evaluate(
    (el) =>
      new Promise<number>((resolve) => {
        const i = el as unknown as {
          complete: boolean;
          naturalWidth: number;
          addEventListener(type: string, listener: () => void): void;
        };
        if (i.complete && i.naturalWidth > 0) return resolve(i.naturalWidth);
        i.addEventListener("load", () => resolve(i.naturalWidth));
        i.addEventListener("error", () => resolve(0));
        setTimeout(() => resolve(-1), 10_000);
      }),
  );

/**
 * A dialog taller than the screen, photographed whole: the window made as tall as the dialog's content
 * (a modal dialog scrolls within the window), at desktop and phone width, checked at phone width as
 * checkPage does. docs/dashboard/<name>-desktop.png and -phone.png.
 */
async function shootDialog(page: Page, dialog: Locator, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  for (const [label, size] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const) {
    await page.setViewportSize(size);
    const tall = await dialog.evaluate((d) => (d as unknown as { scrollHeight: number }).scrollHeight);
    await page.setViewportSize({ width: size.width, height: Math.max(size.height, tall + 80) });
    await page.mouse.move(0, 0);
    // No field focused: its ring would be photographed.
    await page.evaluate("document.activeElement?.blur()");
    await page.evaluate("new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))");
    if (label === "phone") {
      expect(await seriousViolations(page), `axe on ${name} at phone width`).toEqual([]);
      expect(await sidewaysScroll(page), `${name} scrolls sideways at phone width`).toEqual([]);
    }
    // Down to the dialog's bottom edge: the window below it is empty.
    const box = await dialog.boundingBox();
    const height = Math.min(box ? Math.ceil(box.y + box.height + 24) : size.height, tall + 80);
    await page.screenshot({
      path: join(SHOTS, `${name}-${label}.png`),
      clip: { x: 0, y: 0, width: size.width, height: Math.max(height, size.height) },
      animations: "disabled",
      caret: "hide",
    });
  }
  await page.setViewportSize(DESKTOP);
}

export function smartLinksStory(web: BrowserFixture): void {
  describe("smart links: rules, split, try as, preview, UTM templates, QR logo", () => {
    let owner: BrowserContext;
    let page: Page;
    let apiKey = "";
    let link: LinkJson;
    const cspViolations: string[] = [];

    /** The API with the account's key: what a script sees. */
    const api = keyApi(web, () => apiKey);

    beforeAll(async () => {
      owner = await web.newOwner();
      apiKey = await signUpThroughApi(owner, `ada-${unique}@example.com`);
      page = await openDashboard(owner, cspViolations);
    });
    afterAll(() => owner?.close());

    it("the account's default: new links do not forward query parameters", async () => {
      await openPage(page, "General");
      const toggle = page.getByRole("switch", { name: "Forward query parameters" });
      expect(await toggle.isChecked()).toBe(true);
      await toggle.click();
      await page.getByText("New links do not forward query parameters.").waitFor();
      expect(await toggle.isChecked()).toBe(false);
      const account = await getInPage<{ data: { forward_query?: boolean } }>(page, "/api/v1/account");
      expect(account.body.data.forward_query).toBe(false);
      await checkPage(page, "workspace-forward-query");
    });

    it("creates a link with a UTM template, two rules and a split, tried as three visitors", async () => {
      // A template a colleague saved through the API.
      await api("POST", "/api/v1/utm-templates", {
        name: "Newsletter",
        params: { utm_source: "newsletter", utm_medium: "email", utm_campaign: "spring" },
      });
      await openPage(page, "Links");
      await page.getByRole("heading", { name: "Links", level: 1 }).waitFor();
      await page.getByRole("button", { name: "Create link" }).first().click();
      const dialog = page.getByRole("dialog", { name: "Create link" });
      const destination = dialog.getByLabel("Destination URL");
      await destination.fill("https://shop.example/spring");

      // UTM: the template fills the parameters into the URL; one more is typed; saved as a template.
      await dialog.getByText("UTM parameters").click();
      await dialog.getByLabel("Template", { exact: true }).selectOption({ label: "Newsletter" });
      expect(await destination.inputValue()).toBe(
        "https://shop.example/spring?utm_source=newsletter&utm_medium=email&utm_campaign=spring",
      );
      expect(await dialog.getByLabel(/^Source/).inputValue()).toBe("newsletter");
      await dialog.getByLabel(/^Content/).fill("hero");
      expect(await destination.inputValue()).toContain("utm_content=hero");
      await dialog.getByLabel("Save these as a template").fill("Newsletter hero");
      await dialog.getByRole("button", { name: "Save template" }).click();
      await dialog.getByText("Saved as “Newsletter hero”.").waitFor();
      const templates = await api<{ name: string; params: Record<string, string> }[]>(
        "GET",
        "/api/v1/utm-templates",
      );
      expect(templates.map((t) => t.name).sort()).toEqual(["Newsletter", "Newsletter hero"]);
      expect(templates.find((t) => t.name === "Newsletter hero")?.params).toMatchObject({
        utm_content: "hero",
        utm_source: "newsletter",
      });
      // The first one is not needed any more.
      await dialog.getByLabel("Template", { exact: true }).selectOption({ label: "Newsletter" });
      await dialog.getByRole("button", { name: "Delete template" }).click();
      await dialog.getByText("Deleted “Newsletter”.").waitFor();
      await dialog.getByLabel("Template", { exact: true }).selectOption({ label: "Newsletter hero" });
      await shootDialog(page, dialog, "link-utm");
      expect((await api<{ name: string }[]>("GET", "/api/v1/utm-templates")).map((t) => t.name)).toEqual([
        "Newsletter hero",
      ]);
      await dialog.getByText("UTM parameters").click();

      // Two rules: German phones, then newsletter readers; the second is moved above the first.
      await dialog.getByText("Smart destinations").click();
      await dialog.getByRole("button", { name: "Add rule" }).click();
      const rule1 = dialog.locator(".smart-rule").nth(0);
      await rule1.getByRole("group", { name: "Device" }).getByLabel("Phone").check();
      await rule1.getByLabel("Countries").fill("de, at");
      await rule1.getByLabel("Rule 1 destination URL").fill("https://shop.example/de/mobile");
      await dialog.getByRole("button", { name: "Add rule" }).click();
      const rule2 = dialog.locator(".smart-rule").nth(1);
      await rule2.getByRole("button", { name: "Add parameter" }).click();
      await rule2.getByLabel("Name").fill("ref");
      await rule2.getByLabel("Value").fill("newsletter");
      await rule2.getByLabel("Rule 2 destination URL").fill("https://shop.example/welcome-reader");
      await dialog.getByRole("button", { name: "Move rule 2 up" }).click();
      expect(await dialog.getByLabel("Rule 1 destination URL").inputValue()).toBe(
        "https://shop.example/welcome-reader",
      );

      // A 75/25 split of everyone else.
      await dialog.getByRole("button", { name: "Split traffic" }).click();
      await dialog.getByLabel("Split URL 1", { exact: true }).fill("https://shop.example/spring-a");
      await dialog.getByLabel("Weight").nth(0).fill("75");
      await dialog.getByLabel("Split URL 2", { exact: true }).fill("https://shop.example/spring-b");
      await dialog.getByLabel("Weight").nth(1).fill("25");
      expect(await dialog.getByLabel("Share of split URL 1").textContent()).toBe("75%");
      expect(await dialog.getByLabel("Share of split URL 2").textContent()).toBe("25%");

      // The account forwards nothing by default: this link does.
      const forward = dialog.getByRole("switch", { name: "Forward query parameters" });
      expect(await forward.isChecked()).toBe(false);
      await forward.check();
      await dialog.getByLabel("Click limit").fill("1000");
      await dialog.getByLabel("When expired, send to").fill("https://shop.example/sold-out");

      // Try as: a phone in Germany gets rule 2; a newsletter reader rule 1 (the query forwarded);
      // a desktop in France one of the split URLs.
      const result = dialog.getByTestId("try-result");
      await dialog.locator("#try-device").selectOption("mobile");
      await dialog.locator("#try-country").fill("DE");
      await result.getByText("https://shop.example/de/mobile").waitFor();
      await result.getByText("From rule 2.").waitFor();
      await dialog.locator("#try-query").fill("ref=newsletter");
      await result.getByText("https://shop.example/welcome-reader?ref=newsletter").waitFor();
      await result.getByText("From rule 1.").waitFor();
      await dialog.locator("#try-query").fill("");
      await dialog.locator("#try-device").selectOption("desktop");
      await dialog.locator("#try-country").fill("FR");
      await result.getByText(/From split URL [12] of 2/).waitFor();
      await shootDialog(page, dialog, "link-smart-rules");
      expect(await seriousViolations(page), "axe on the smart editor").toEqual([]);
    });

    it("adds a social preview with an uploaded image, shown as a card, and saves the link", async () => {
      const dialog = page.getByRole("dialog", { name: "Create link" });
      await dialog.getByLabel("Preview title").fill("Spring sale: 30% off");
      await dialog.getByLabel("Preview description").fill("Every jacket and every boot, this week only.");
      await dialog.getByLabel("Preview image").setInputFiles({
        name: "spring.png",
        mimeType: "image/png",
        buffer: await solidPng(page, "#c2410c", 1200, 630),
      });
      const card = dialog.getByRole("figure", { name: "Preview card" });
      await card.getByText("Spring sale: 30% off").waitFor();
      const image = card.getByTestId("og-card-image");
      expect(await loadedWidth(image)).toBeGreaterThan(0);
      await shootDialog(page, dialog, "link-smart-preview");

      await dialog.getByRole("button", { name: "Create link" }).click();
      await dialog.waitFor({ state: "detached" });
      const row = page.getByTestId("link-row").first();
      await row.waitFor();
      const listed = await api<LinkJson[]>("GET", "/api/v1/links");
      link = listed[0]!;
      expect(link.original_url).toBe(
        "https://shop.example/spring?utm_source=newsletter&utm_medium=email&utm_campaign=spring&utm_content=hero",
      );
      expect(link.rules).toEqual([
        { when: { query: { ref: "newsletter" } }, url: "https://shop.example/welcome-reader" },
        { when: { device: ["mobile"], country: ["DE", "AT"] }, url: "https://shop.example/de/mobile" },
      ]);
      expect(link.split).toEqual([
        { url: "https://shop.example/spring-a", weight: 75 },
        { url: "https://shop.example/spring-b", weight: 25 },
      ]);
      expect(link.forward_query).toBe(true);
      expect(link.max_clicks).toBe(1000);
      expect(link.expired_url).toBe("https://shop.example/sold-out");
      expect(link.og).toMatchObject({
        title: "Spring sale: 30% off",
        description: "Every jacket and every boot, this week only.",
      });
      expect(link.og?.image).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    });

    it("the link's edit form shows what was saved; a bad app link is shown at its field", async () => {
      await page.goto(`/dashboard/links/${link.id}`);
      // The link's head names what it does beyond redirecting.
      for (const mark of ["2 rules", "Split", "Up to 1,000 clicks", "Preview"])
        await page.locator(".link-head .pill").filter({ hasText: mark }).waitFor();
      await page.getByRole("button", { name: "Edit" }).click();
      const dialog = page.getByRole("dialog", { name: `Edit ${link.short_code}` });
      await dialog.getByText("Smart destinations").click();
      expect(await dialog.getByLabel("Rule 2 destination URL").inputValue()).toBe(
        "https://shop.example/de/mobile",
      );
      expect(await dialog.getByLabel("Countries").nth(1).inputValue()).toBe("DE, AT");
      expect(await dialog.getByRole("switch", { name: "Forward query parameters" }).isChecked()).toBe(true);
      expect(await loadedWidth(dialog.getByTestId("og-card-image"))).toBeGreaterThan(0);
      // The API refuses a scheme that runs in the page; its message is shown at the field.
      await dialog.getByLabel("iOS app URL").fill("javascript://alert(1)");
      await dialog.getByRole("button", { name: "Save changes" }).click();
      await dialog.getByText("Check the highlighted fields.").waitFor();
      await dialog.locator("#sf-ios-note.field-error").waitFor();
      expect(await dialog.getByLabel("iOS app URL").getAttribute("aria-invalid")).toBe("true");
      await shootDialog(page, dialog, "link-smart-edit-refused");
      await dialog.getByLabel("iOS app URL").fill("https://apps.apple.com/app/id123");
      await dialog.getByRole("button", { name: "Remove rule 2" }).click();
      await dialog.getByRole("button", { name: "Save changes" }).click();
      await dialog.waitFor({ state: "detached" });
      const saved = await api<LinkJson & { ios_url: string | null }>("GET", `/api/v1/links/${link.id}`);
      expect(saved.ios_url).toBe("https://apps.apple.com/app/id123");
      expect(saved.rules).toHaveLength(1);
      expect(saved.split).toHaveLength(2);
    });

    it("the QR code gets a logo in its centre, at error correction H, and downloads with it", async () => {
      const qr = page.locator("#qr");
      const asked: string[] = [];
      page.on("request", (r) => {
        if (r.url().includes("/api/v1/qr/")) asked.push(r.url());
      });
      await qr.getByLabel("Logo in the centre").setInputFiles({
        name: "logo.png",
        mimeType: "image/png",
        buffer: await solidPng(page, "#1d4ed8", 64, 64),
      });
      const preview = qr.getByTestId("qr-with-logo");
      expect(await loadedWidth(preview)).toBeGreaterThan(0);
      expect(asked.some((u) => new URL(u).searchParams.get("ec") === "H")).toBe(true);
      expect(await qr.getByLabel("Error correction").inputValue()).toBe("H");
      expect(await qr.getByLabel("Error correction").isDisabled()).toBe(true);
      // The centre is the logo's blue.
      expect(await centreOf(page, (await preview.getAttribute("src")) ?? "")).toEqual([29, 78, 216, 400]);

      const [download] = await Promise.all([
        page.waitForEvent("download"),
        qr.getByRole("button", { name: "Download PNG" }).click(),
      ]);
      const bytes = readFileSync((await download.path()) ?? "");
      expect(bytes.subarray(1, 4).toString()).toBe("PNG");
      // The downloaded file, shown in the page, has the logo at its centre too.
      const dataUrl = `data:image/png;base64,${bytes.toString("base64")}`;
      const centre = await centreOf(page, dataUrl);
      expect(centre).toEqual([29, 78, 216, 400]);
      await qr.scrollIntoViewIfNeeded();
      await checkPage(page, "link-qr-logo");
      expect(cspViolations).toEqual([]);
    });
  });
}
