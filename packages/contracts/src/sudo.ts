// Re-entering the password ("sudo mode", docs/api.md "Confirming the password"). What would hand the
// account to someone who holds only a session cookie (minting an API key, changing the password) asks
// the signed-in person for the current password: in the request itself (`current_password`), or
// confirmed shortly before through POST /api/v1/auth/confirm. Signing in does not count as a
// confirmation, so a cookie stolen right after sign-in unlocks none of it. A key's request needs
// neither: a key is a credential of the whole account already.
import * as z from "zod";
import { StoredText, Timestamp } from "./primitives.ts";

export const PASSWORD_MAX_LENGTH = 256;
/** How long a confirmation lasts: requests of the session within it need no `current_password`. */
export const SUDO_WINDOW_MINUTES = 10;

/** Any password up to the maximum is checked: a wrong or shorter one simply does not match. */
export const CurrentPassword = StoredText()
  .min(1)
  .max(PASSWORD_MAX_LENGTH)
  .meta({ description: "The account's current password" });

export const ConfirmPasswordBody = z
  .object({ current_password: CurrentPassword })
  .meta({ id: "ConfirmPasswordBody" });
export type ConfirmPasswordBody = z.infer<typeof ConfirmPasswordBody>;

export const PasswordConfirmed = z
  .object({
    confirmed_until: Timestamp.meta({
      description: `Until when this session's requests need no current_password (${SUDO_WINDOW_MINUTES} minutes)`,
    }),
  })
  .meta({ id: "PasswordConfirmed" });
export type PasswordConfirmed = z.infer<typeof PasswordConfirmed>;
