// Reading a MaxMind DB's search tree directly (the MaxMind DB format: one node per bit of an address,
// two records a node of 24, 28 or 32 bits), for services that walk it faster than maxmind's reader
// does for their one purpose: the redirect's country of a visitor, analytics' table of IPv4 ranges.

/**
 * The record on `side` (0 left, 1 right) of tree node `node`: another node when below the database's
 * node count, "no data" when equal to it, a data pointer above it. `recordSize` is 24, 28 or 32.
 */
export function mmdbRecord(buf: Buffer, recordSize: number, node: number, side: number): number {
  switch (recordSize) {
    case 24: {
      const o = node * 6 + side * 3;
      return (buf[o]! << 16) | (buf[o + 1]! << 8) | buf[o + 2]!;
    }
    case 28: {
      // The middle byte holds the high nibble of each record: left's in its top half, right's below.
      const o = node * 7;
      return side === 0
        ? ((buf[o + 3]! & 0xf0) << 20) | (buf[o]! << 16) | (buf[o + 1]! << 8) | buf[o + 2]!
        : ((buf[o + 3]! & 0x0f) << 24) | (buf[o + 4]! << 16) | (buf[o + 5]! << 8) | buf[o + 6]!;
    }
    case 32:
      return buf.readUInt32BE(node * 8 + side * 4);
    default:
      throw new Error(`unsupported MaxMind record size ${recordSize}`);
  }
}

/** A dotted-quad IPv4 address as an unsigned number; -1 for anything else. */
export function ipv4Number(s: string): number {
  if (s.length < 7 || s.length > 15) return -1;
  let n = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46 /* . */) {
      if (digits === 0 || dots === 3) return -1;
      n = n * 256 + part;
      part = 0;
      digits = 0;
      dots++;
    } else if (c >= 48 && c <= 57) {
      // No leading zeros: `010` is octal to some parsers, so it is left to the reader to refuse.
      if (digits === 1 && part === 0) return -1;
      part = part * 10 + (c - 48);
      if (part > 255) return -1;
      digits++;
    } else return -1;
  }
  if (digits === 0 || dots !== 3) return -1;
  return n * 256 + part;
}
