// Unique visitors without keeping anyone's identity: a visitor is a hash of address and user agent
// with a salt derived from a secret and the UTC day. The salt changes every day, so the same person
// cannot be followed from one day to the next, and without the secret a hash cannot be recomputed
// from a guessed address.
import { createHash, createHmac, hash } from "node:crypto";

/** Room for the salt and the longest address and user agent a click event carries, in UTF-8. */
const MAX_TEXT = 64 + 1 + 1024;

export class VisitorHasher {
  private readonly salts = new Map<string, Buffer>();
  /** salt ‖ ip ‖ "\n" ‖ user agent, written in place: one call into OpenSSL and no allocation per click. */
  private readonly input = Buffer.allocUnsafe(32 + 3 * MAX_TEXT);
  private inputDay = "";

  constructor(private readonly secret: string) {}

  /**
   * The first 8 bytes of SHA-256(salt ‖ ip ‖ "\n" ‖ user agent), a UInt64 as decimal text (JSON
   * numbers lose precision above 2^53).
   */
  hash(day: string, ip: string | null, userAgent: string | null): string {
    const address = ip ?? "";
    const agent = userAgent ?? "";
    if (address.length + agent.length + 1 > MAX_TEXT) return this.hashLong(day, address, agent);
    if (day !== this.inputDay) {
      this.salt(day).copy(this.input, 0);
      this.inputDay = day;
    }
    let end = 32 + this.input.write(address, 32, "utf8");
    this.input[end++] = 0x0a;
    end += this.input.write(agent, end, "utf8");
    return BigInt(`0x${hash("sha256", this.input.subarray(0, end), "hex").slice(0, 16)}`).toString();
  }

  /** The same hash for text longer than click events carry. */
  private hashLong(day: string, address: string, agent: string): string {
    const digest = createHash("sha256")
      .update(this.salt(day))
      .update(address)
      .update("\n")
      .update(agent)
      .digest();
    return digest.readBigUInt64BE(0).toString();
  }

  private salt(day: string): Buffer {
    let salt = this.salts.get(day);
    if (!salt) {
      // Only a few days are ever in flight at once (late events); keep the map from growing.
      if (this.salts.size > 8) this.salts.clear();
      salt = createHmac("sha256", this.secret).update(day).digest();
      this.salts.set(day, salt);
    }
    return salt;
  }
}
