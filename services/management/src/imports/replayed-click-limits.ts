// Replayed clicks advance a link's click limit (max_clicks) as the redirect's counted visits do: one
// INCR of the shared counter (contracts' clickLimitKey) per click. The counter holds no click ids, so
// each replayed id is first added to the link's replayed set (clickLimitReplayedKey) and only a new
// member increments: a log replayed again, or one overlapping an earlier replay, advances nothing.
// Both steps run in one script, so a replay cut short never leaves an id recorded but not counted.
import { clickLimitKey, clickLimitReplayedKey } from "@kurz/contracts";
import type { Redis } from "ioredis";

const ADVANCE = `
local n = 0
for i = 1, #ARGV do
  if redis.call('SADD', KEYS[2 * i], ARGV[i]) == 1 then
    redis.call('INCR', KEYS[2 * i - 1])
    n = n + 1
  end
end
return n`;

/** Clicks per script call: one round trip each, short enough not to hold Redis up. */
const CHUNK = 500;

export interface LimitedClick {
  linkId: string;
  clickId: string;
}

export class ReplayedClickLimits {
  constructor(private readonly redis: Redis) {}

  /** Counts each click that no earlier replay counted; returns how many advanced a counter. */
  async advance(clicks: readonly LimitedClick[]): Promise<number> {
    let advanced = 0;
    for (let from = 0; from < clicks.length; from += CHUNK) {
      const chunk = clicks.slice(from, from + CHUNK);
      const keys = chunk.flatMap((c) => [clickLimitKey(c.linkId), clickLimitReplayedKey(c.linkId)]);
      advanced += Number(
        await this.redis.eval(ADVANCE, keys.length, ...keys, ...chunk.map((c) => c.clickId)),
      );
    }
    return advanced;
  }
}
