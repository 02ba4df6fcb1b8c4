import { randomBase62 } from "../keys/api-keys.ts";

const LENGTH = 7; // 62^7 ≈ 3.5e12 codes: collisions stay rare long past any single deployment's size

/**
 * A random code. Whether it is free is settled by the insert itself (insert-link.ts): a taken code
 * fails on the unique index and a retired one (even past its grace, as drawing another costs nothing)
 * inserts nothing; either way the create draws once more.
 */
export function randomShortCode(): string {
  return randomBase62(LENGTH);
}
