import { ClickEvent } from "@kurz/contracts";
import { describe, expect, it } from "vitest";
import { EDGE_CLOCK_SKEW_MS, edgeClick } from "./edge-click.ts";

const REQUEST_ID = "6b542d65e2c4d0837981d44aea105cca";
const edgeValue = (ms: number, id = REQUEST_ID) =>
  `${id} ${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, "0")}`;

describe("edgeClick", () => {
  it("gives a version 7 click id carrying the edge's millisecond and bits of its request id", () => {
    const now = Date.UTC(2026, 10, 24, 23, 40, 42, 835);
    const click = edgeClick(edgeValue(now), now + 40)!;
    expect(click.ms).toBe(now);
    expect(click.clickId).toBe("01a20fee-dfd3-76b5-82d6-5e2c4d083798");
    expect(ClickEvent.shape.click_id.safeParse(click.clickId).success).toBe(true);
    expect(Number.parseInt(click.clickId.slice(0, 8) + click.clickId.slice(9, 13), 16)).toBe(now);
  });

  it("gives the same id for the same request, whichever instance and clock reads it, and others for others", () => {
    const at = Date.now();
    const value = edgeValue(at);
    expect(edgeClick(value, at + 3)).toEqual(edgeClick(value, at - 20_000));
    expect(edgeClick(edgeValue(at, "6b542d65e2c4d0837981d44aea105ccb"), at)?.clickId).toBe(
      edgeClick(value, at)?.clickId, // the last 13 hex digits are not used
    );
    expect(edgeClick(edgeValue(at, "7b542d65e2c4d0837981d44aea105cca"), at)?.clickId).not.toBe(
      edgeClick(value, at)?.clickId,
    );
    expect(edgeClick(edgeValue(at + 1), at)?.clickId).not.toBe(edgeClick(value, at)?.clickId);
  });

  it("takes every variant the random bits allow", () => {
    const at = Date.now();
    const variants = new Set(
      "0123456789abcdef"
        .split("")
        .map((d) => edgeClick(edgeValue(at, `abc${d}${"0".repeat(28)}`), at)!.clickId[19]),
    );
    expect([...variants].sort()).toEqual(["8", "9", "a", "b"]);
  });

  it("refuses a time further from this clock than the allowed skew (a client cannot backdate a click)", () => {
    const now = Date.now();
    expect(edgeClick(edgeValue(now - EDGE_CLOCK_SKEW_MS), now)).not.toBeNull();
    expect(edgeClick(edgeValue(now - EDGE_CLOCK_SKEW_MS - 1), now)).toBeNull();
    expect(edgeClick(edgeValue(now + EDGE_CLOCK_SKEW_MS + 1), now)).toBeNull();
    expect(edgeClick(edgeValue(now - 86_400_000), now)).toBeNull();
  });

  it("refuses anything but nginx's request id and time", () => {
    const now = Date.now();
    const good = edgeValue(now);
    for (const bad of [
      undefined,
      "",
      good.toUpperCase(),
      good.replace(" ", "  "),
      `${good} `,
      ` ${good}`,
      good.slice(1),
      `${REQUEST_ID.slice(0, 31)}g ${good.slice(33)}`,
      `${REQUEST_ID} ${Math.floor(now / 1000)}`,
      `${REQUEST_ID} ${Math.floor(now / 1000)}.12`,
      `${REQUEST_ID} ${Math.floor(now / 1000)},123`,
      `${REQUEST_ID}\n${good.slice(33)}`,
      `${REQUEST_ID.slice(0, 30)}-- ${good.slice(33)}`,
    ])
      expect(edgeClick(bad, now), JSON.stringify(bad)).toBeNull();
  });
});
