// Every path that sets an account password (sign-up, the v1 password change, the older API's account
// update) refuses one that is easy to guess, before hashing it or changing anything. The rule itself
// (length, zxcvbn score, the person's e-mail as a penalty) is contracts' password-strength.ts, which the
// dashboard's meter runs too, so the meter and the server never disagree.
//
// Imported on the first password set, not at start: its dictionaries take ~11 MB of V8 heap once
// evaluated, and a process that only serves the API (keys, links, redirects' misses) never needs them.
import { fieldErrors } from "@kurz/contracts";
import { validation } from "@kurz/service-kit";

/** Throws VALIDATION_ERROR naming `field` and the reason when `password` is too weak for `email`'s account. */
export async function requireStrongPassword(
  password: string,
  account: { field: string; email: string },
): Promise<void> {
  const { passwordStrength } = await import("@kurz/contracts/password-strength");
  const { problem } = passwordStrength(password, { email: account.email });
  if (problem === null) return;
  throw validation(
    `Invalid request: ${account.field}: ${problem}`,
    fieldErrors({ [account.field]: problem }),
  );
}
