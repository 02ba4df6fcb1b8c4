// Invitations (docs/workspaces.md): a single-use random token, of which only the SHA-256 is kept, that
// lets the invited e-mail's owner join a workspace with a role until it expires.
import type { Invitation, Role } from "@kurz/contracts";
import type { Invitation as InvitationRow } from "@kurz/db";

/** The dashboard page that accepts it; the token rides in the fragment, which no server receives or logs. */
export const acceptUrl = (baseUrl: string, token: string): string =>
  `${baseUrl.replace(/\/+$/, "")}/signup#invitation=${token}`;

export function toInvitation(row: InvitationRow): Invitation {
  return {
    id: row.id,
    email: row.email,
    role: row.role as Role,
    invited_by: row.invitedByUserId,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
  };
}
