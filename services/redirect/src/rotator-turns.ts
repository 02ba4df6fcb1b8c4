import { LRUCache } from "lru-cache";

/**
 * Whose turn it is in each campaign rotator. Kept per process: with several redirect instances each
 * one rotates on its own, which spreads visitors evenly overall without a Redis round trip per visit.
 */
export class RotatorTurns {
  private readonly turns = new LRUCache<number, number>({ max: 10_000 });

  next(campaignId: number, size: number): number {
    const turn = this.turns.get(campaignId) ?? 0;
    this.turns.set(campaignId, (turn + 1) % size);
    return turn % size;
  }
}
