import { describe, expect, it } from "vitest";
import { RotatorTurns } from "./rotator-turns.ts";

const picks = (turns: RotatorTurns, links: { weight?: number }[], n: number) =>
  Array.from({ length: n }, () => turns.next(1, links));

describe("RotatorTurns", () => {
  it("rotates links without weights in assignment order", () => {
    expect(picks(new RotatorTurns(), [{}, {}, {}], 6)).toEqual([0, 1, 2, 0, 1, 2]);
  });

  it("gives every link exactly its weight in each cycle, spread out", () => {
    const seq = picks(new RotatorTurns(), [{ weight: 4 }, { weight: 1 }], 10);
    expect(seq.filter((i) => i === 0)).toHaveLength(8);
    expect(seq.slice(0, 5).filter((i) => i === 1)).toHaveLength(1);
  });

  it("starts over when the campaign's weights change", () => {
    const turns = new RotatorTurns();
    picks(turns, [{ weight: 1 }, { weight: 3 }], 3);
    const after = picks(turns, [{ weight: 1 }, { weight: 1 }], 4);
    expect(after).toEqual([0, 1, 0, 1]);
  });
});
