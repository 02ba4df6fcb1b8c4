import { LRUCache } from "lru-cache";

interface Turn {
  /** The weights the state was built for; a change of the campaign's links starts over. */
  signature: string;
  current: number[];
}

/**
 * Whose turn it is in each campaign rotator, by smooth weighted round robin (decision 0026): every
 * pick adds each link's weight to its running score, takes the highest score and takes the sum of
 * the weights off it. Over each cycle of `sum(weights)` visits every link gets exactly its weight, and
 * the picks are spread through the cycle (80/20 gives A A B A A, not A A A A B); equal weights are plain
 * round robin in assignment order. Kept per process: with several redirect instances each one rotates
 * on its own, which still splits visitors by the weights overall without a Redis round trip per visit.
 */
export class RotatorTurns {
  private readonly turns = new LRUCache<number, Turn>({ max: 10_000 });

  /** The index of the link whose turn it is; links without a weight weigh 1. */
  next(campaignId: number, links: ReadonlyArray<{ weight?: number | undefined }>): number {
    const weights = links.map((l) => l.weight ?? 1);
    const signature = weights.join(",");
    let turn = this.turns.get(campaignId);
    if (turn === undefined || turn.signature !== signature) {
      turn = { signature, current: weights.map(() => 0) };
      this.turns.set(campaignId, turn);
    }
    const { current } = turn;
    let total = 0;
    let best = 0;
    for (let i = 0; i < weights.length; i++) {
      current[i]! += weights[i]!;
      total += weights[i]!;
      if (current[i]! > current[best]!) best = i;
    }
    current[best]! -= total;
    return best;
  }
}
