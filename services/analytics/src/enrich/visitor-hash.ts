// Unique visitors without keeping anyone's identity: a visitor is a hash of address and user agent
// with a salt derived from a secret and the UTC day. The salt changes every day, so the same person
// cannot be followed from one day to the next, and without the secret a hash cannot be recomputed
// from a guessed address.
import { createHash, createHmac } from "node:crypto";

export class VisitorHasher {
  private readonly salts = new Map<string, Buffer>();

  constructor(private readonly secret: string) {}

  /** A UInt64 as decimal text (JSON numbers lose precision above 2^53). */
  hash(day: string, ip: string | null, userAgent: string | null): string {
    const digest = createHash("sha256")
      .update(this.salt(day))
      .update(ip ?? "")
      .update("\n")
      .update(userAgent ?? "")
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
