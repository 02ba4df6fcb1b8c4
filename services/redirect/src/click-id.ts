// Click ids: UUIDv7 (RFC 9562) with the "fixed-length dedicated counter" of section 6.2, method 1: the
// first 48 bits are the Unix time in milliseconds, the 12 bits after the version a counter that starts
// at a random value below 2048 each millisecond, the rest (variant and 62 random bits) taken from
// Node's randomUUID(). Ids of one process are strictly increasing, so a link's clicks sort in the
// order they were made. Measured at ~300 ns against 460 ns for the uuid package's v7, whose formatter
// also builds each id from ~20 intermediate strings (issue 4 profiles).
import { randomInt, randomUUID } from "node:crypto";

const HEX3 = Array.from({ length: 4096 }, (_, i) => i.toString(16).padStart(3, "0"));
let lastMs = -1;
let prefix = "";
let counter = 0;

export function clickId(now = Date.now()): string {
  // A clock that steps back, or a counter that runs out within a millisecond, continues the last
  // millisecond instead: order is kept.
  if (now > lastMs) {
    lastMs = now;
    counter = randomInt(2048);
    prefix = prefixOf(now);
  } else if (++counter === 4096) {
    lastMs++;
    counter = randomInt(2048);
    prefix = prefixOf(lastMs);
  }
  // randomUUID(): xxxxxxxx-xxxx-4xxx-Nxxx-xxxxxxxxxxxx; its last 18 characters start at the variant.
  return prefix + HEX3[counter] + randomUUID().slice(18);
}

function prefixOf(ms: number): string {
  const hex = ms.toString(16).padStart(12, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8)}-7`;
}
