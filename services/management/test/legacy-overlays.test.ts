// Older API: CTA overlays, listed by GET /api/overlay and created with the admin CLI
// (`./kurz overlays:create`) until a dashboard does.
import { describe, expect, it } from "vitest";
import {
  expectLegacyError,
  expectLegacyList,
  LEGACY_DATE,
  runCli,
  uniqueEmail,
  useLegacyTenants,
} from "./legacy-helpers.ts";

describe("legacy CTA overlays", () => {
  const { bed, call, other, owner } = useLegacyTenants("cta");

  const createOverlay = async (type: string, name: string) => {
    const res = await runCli(bed.stack, [
      "overlays:create",
      "--account",
      owner().email,
      "--type",
      type,
      "--name",
      name,
    ]);
    expect(res.code, res.stderr).toBe(0);
    return JSON.parse(res.stdout.trim().split("\n").at(-1) ?? "") as { id: number; date: string };
  };

  it("lists overlays created with the CLI, with the original product's field types", async () => {
    const empty = expectLegacyList(await call("GET", "/overlay"), "cta");
    expect(empty).toEqual({ result: 0, perpage: 10, currentpage: 1, nextpage: null, maxpage: 0, cta: [] });

    const message = await createOverlay("message", "Product 1 Promo");
    const contact = await createOverlay("contact", "Contact page");
    expect(Number.isInteger(message.id)).toBe(true);
    expect(message.date).toMatch(LEGACY_DATE);

    const list = expectLegacyList(await call("GET", "/overlay"), "cta");
    expect(list).toMatchObject({ result: 2, perpage: 10, currentpage: 1, nextpage: null, maxpage: 1 });
    expect(list.cta).toMatchObject([
      { id: contact.id, type: "contact", name: "Contact page", date: contact.date },
      { id: message.id, type: "message", name: "Product 1 Promo", date: message.date },
    ]);

    const paged = expectLegacyList(await call("GET", "/overlay?limit=1&page=2"), "cta");
    expect(paged).toMatchObject({ perpage: 1, currentpage: 2, nextpage: null, maxpage: 2 });
    expect(paged.cta.map((o: { id: number }) => o.id)).toEqual([message.id]);

    // Another account sees none of them.
    const theirs = expectLegacyList(await other("GET", "/overlay"), "cta");
    expect(theirs.result).toBe(0);

    expectLegacyError(await call("GET", "/overlay?limit=1000"), 400);
  });

  it("refuses bad CLI input with a message and exit code 1", async () => {
    // Three processes that touch nothing the others read: started together.
    const [badType, unknown, noName] = await Promise.all([
      runCli(bed.stack, ["overlays:create", "--account", owner().email, "--type", "banner", "--name", "X"]),
      runCli(bed.stack, [
        "overlays:create",
        "--account",
        uniqueEmail("nobody"),
        "--type",
        "message",
        "--name",
        "X",
      ]),
      runCli(bed.stack, ["overlays:create", "--account", owner().email, "--type", "message"]),
    ]);
    expect(badType.code).toBe(1);
    expect(badType.stderr).toMatch(/--type must be one of message, contact/);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no workspace/);
    expect(noName.code).toBe(1);
    expect(noName.stderr).toMatch(/--name/);
  });
});
