import { afterEach, describe, expect, it } from "vitest";
import { verifyPassword } from "../security/passwords.ts";
import { PasswordHashPool } from "./password-hash-pool.ts";

let pool: PasswordHashPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe("PasswordHashPool", () => {
  it("hashes with passwords.ts' argon2id parameters on its own threads, and counts what it hashed", async () => {
    pool = new PasswordHashPool(2);
    const hashes = await Promise.all(
      ["first secret", "second secret", "third"].map((p) => pool!.hash(p, "job")),
    );
    for (const h of hashes) expect(h).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword(hashes[0]!, "first secret")).toBe(true);
    expect(await verifyPassword(hashes[2]!, "first secret")).toBe(false);
    expect(pool.hashed).toBe(3);
  });

  it("lets owners take turns: a job that queues later is not served after all of an earlier one's", async () => {
    pool = new PasswordHashPool(1);
    const done: string[] = [];
    const queue = (owner: string, n: number) =>
      Array.from({ length: n }, (_, i) =>
        pool!.hash(`${owner}${i}`, owner).then(() => done.push(`${owner}${i}`)),
      );
    // a0 starts at once on the one thread; then b, which has had fewer, and each owner in turn.
    await Promise.all([...queue("a", 4), ...queue("b", 2)]);
    expect(done).toEqual(["a0", "b0", "a1", "b1", "a2", "a3"]);
  });

  it("serves a job with fewer hashes made first, for at most its head start", async () => {
    pool = new PasswordHashPool(1, 3);
    const done: string[] = [];
    const queue = (owner: string, n: number) =>
      Array.from({ length: n }, (_, i) =>
        pool!.hash(`${owner}${i}`, owner).then(() => done.push(`${owner}${i}`)),
      );
    // a has had its head start (3 hashes); b, queued later, has all of its own before they take turns.
    await Promise.all(queue("a", 4));
    done.length = 0;
    await Promise.all([...queue("a", 4), ...queue("b", 5)]);
    expect(done).toEqual(["a0", "b0", "b1", "b2", "a1", "b3", "a2", "b4", "a3"]);
    // A forgotten owner (its job ended) starts again from none.
    pool.forget("a");
    done.length = 0;
    await Promise.all([...queue("b", 2), ...queue("a", 2)]);
    expect(done).toEqual(["b0", "a0", "a1", "b1"]);
  });

  it("rejects what is queued when it closes, and every hash after", async () => {
    pool = new PasswordHashPool(1);
    const pending = Array.from({ length: 3 }, (_, i) =>
      pool!.hash(`p${i}`, "job").then(
        () => "hashed",
        (err: Error) => err.message,
      ),
    );
    await pool.close();
    expect(await Promise.all(pending)).toEqual(Array(3).fill("the password hash pool is closed"));
    await expect(pool.hash("late", "job")).rejects.toThrow(/closed/);
  });
});
