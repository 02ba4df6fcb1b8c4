// Older API: channels (list, add, update, delete, assign), shaped after the original product, and
// tenant isolation.
import { describe, expect, it } from "vitest";
import {
  createLink,
  expectEmptyLegacyPage,
  expectLegacyError,
  expectLegacyList,
  expectLegacyMessage,
  useLegacyTenants,
} from "./legacy-helpers.ts";

describe("legacy channels", () => {
  const { bed, call, other, owner, stranger, newCaller } = useLegacyTenants("chan");

  it("creates a channel and answers it next to error 0", async () => {
    const res = await call("POST", "/channel/add", {
      name: "Social",
      description: "Links we post",
      color: "#1a2b3c",
      starred: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      error: 0,
      id: expect.any(Number),
      name: "Social",
      description: "Links we post",
      color: "#1A2B3C",
      starred: true,
    });
    expect(Number.isInteger(res.body.id)).toBe(true);

    const plain = await call("POST", "/channel/add", { name: "Plain" });
    expect(plain.body).toEqual({
      error: 0,
      id: expect.any(Number),
      name: "Plain",
      description: "",
      color: "#000000",
      starred: false,
    });
  });

  it("lists channels with id, name, description, color and starred", async () => {
    const fresh = await newCaller("chan-list");
    expectEmptyLegacyPage(await fresh("GET", "/channels"), "channels");
    const a = (await fresh("POST", "/channel/add", { name: "A", starred: true })).body;
    const b = (await fresh("POST", "/channel/add", { name: "B", description: "bee", color: "#FF0000" })).body;
    const list = expectLegacyList(await fresh("GET", "/channels"), "channels");
    expect(list).toMatchObject({ result: 2, perpage: 10, currentpage: 1, nextpage: null, maxpage: 1 });
    expect(list.channels).toEqual([
      { id: b.id, name: "B", description: "bee", color: "#FF0000", starred: false },
      { id: a.id, name: "A", description: "", color: "#000000", starred: true },
    ]);
    const first = expectLegacyList(await fresh("GET", "/channels?limit=1"), "channels");
    expect(first).toMatchObject({ perpage: 1, currentpage: 1, nextpage: 2, maxpage: 2 });
    expectLegacyError(await fresh("GET", "/channels?page=0"), 400);
  });

  it("rejects bad channel input with error 1 and 400", async () => {
    for (const body of [
      {},
      { name: "" },
      { name: "   " },
      { name: "x".repeat(101) },
      { name: "ok", color: "red" },
      { name: "ok", color: "#12345" },
      { name: "ok", starred: "yes" },
      { name: "ok", description: 5 },
    ]) {
      expectLegacyError(await call("POST", "/channel/add", body), 400);
    }
  });

  it("updates any subset of fields", async () => {
    const { id } = (await call("POST", "/channel/add", { name: "Before", description: "old" })).body;
    expectLegacyMessage(await call("PUT", `/channel/${id}/update`, { starred: true }), /updated/);
    expectLegacyMessage(await call("PUT", `/channel/${id}/update`, { name: "After", color: "#00ff00" }));
    const list = expectLegacyList(await call("GET", "/channels?limit=100"), "channels");
    expect(list.channels.find((c: { id: number }) => c.id === id)).toEqual({
      id,
      name: "After",
      description: "old",
      color: "#00FF00",
      starred: true,
    });
    expectLegacyError(await call("PUT", `/channel/${id}/update`, {}), 400, /at least one/);
    expectLegacyError(await call("PUT", `/channel/${id}/update`, { color: "blue" }), 400);
    expectLegacyError(await call("PUT", "/channel/x/update", { name: "Y" }), 400);
  });

  it("deletes a channel, and answers 404 afterwards", async () => {
    const { id } = (await call("POST", "/channel/add", { name: "Temp" })).body;
    const link = await createLink(bed.stack, owner().api_key, "https://example.com/temp");
    await call("POST", `/channel/${id}/assign/${link.id}`);
    expectLegacyMessage(await call("DELETE", `/channel/${id}/delete`), /deleted/);
    expectLegacyError(await call("DELETE", `/channel/${id}/delete`), 404, /Channel not found/);
    expectLegacyError(await call("PUT", `/channel/${id}/update`, { name: "Z" }), 404);
    expect(await bed.prisma.channelLink.count({ where: { channelId: id } })).toBe(0);
    // Deleting the channel leaves the link alone.
    expect(await bed.prisma.link.count({ where: { id: link.id } })).toBe(1);
  });

  it("assigns the caller's links to the caller's channels, idempotently", async () => {
    const { id } = (await call("POST", "/channel/add", { name: "Folder" })).body;
    const link = await createLink(bed.stack, owner().api_key, "https://example.com/in-folder");
    expectLegacyMessage(await call("POST", `/channel/${id}/assign/${link.id}`), /added/);
    expectLegacyMessage(await call("POST", `/channel/${id}/assign/${link.id}`), /added/);
    expect(await bed.prisma.channelLink.findMany({ where: { channelId: id } })).toHaveLength(1);

    const theirs = (await other("POST", "/channel/add", { name: "Theirs" })).body.id;
    const theirLink = await createLink(bed.stack, stranger().api_key, "https://example.com/their-link");
    expectLegacyError(await call("POST", `/channel/${id}/assign/${theirLink.id}`), 404, /Link not found/);
    expectLegacyError(await call("POST", `/channel/${theirs}/assign/${link.id}`), 404, /Channel not found/);
    expectLegacyError(await call("POST", `/channel/${id}/assign/nope`), 400);
    expectLegacyError(await call("POST", `/channel/0/assign/${link.id}`), 400);
    expect(await bed.prisma.channelLink.count({ where: { channelId: theirs } })).toBe(0);
  });

  it("treats another account's channel as not found and changes nothing", async () => {
    const { id } = (await call("POST", "/channel/add", { name: "Private" })).body;
    expectLegacyError(await other("PUT", `/channel/${id}/update`, { name: "Hijacked" }), 404);
    expectLegacyError(await other("DELETE", `/channel/${id}/delete`), 404);
    const theirs = expectLegacyList(await other("GET", "/channels?limit=100"), "channels");
    expect(theirs.channels.map((c: { id: number }) => c.id)).not.toContain(id);
    const mine = expectLegacyList(await call("GET", "/channels?limit=100"), "channels");
    expect(mine.channels.find((c: { id: number }) => c.id === id)).toMatchObject({ name: "Private" });
  });
});
