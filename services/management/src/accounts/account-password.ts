// Every path that sets an account password (sign-up, the v1 password change, the older API's account
// update) refuses one that is easy to guess, before hashing it or changing anything. The rule itself
// (length, zxcvbn score, the person's e-mail as a penalty) is contracts' password-strength.ts, which the
// dashboard's meter runs too, so the meter and the server never disagree.
import { fieldErrors } from "@kurz/contracts";
import { passwordStrength } from "@kurz/contracts/password-strength";
import { validation } from "@kurz/service-kit";

/** Throws VALIDATION_ERROR naming `field` and the reason when `password` is too weak for `email`'s account. */
export function requireStrongPassword(password: string, account: { field: string; email: string }): void {
  const { problem } = passwordStrength(password, { email: account.email });
  if (problem === null) return;
  throw validation(
    `Invalid request: ${account.field}: ${problem}`,
    fieldErrors({ [account.field]: problem }),
  );
}
