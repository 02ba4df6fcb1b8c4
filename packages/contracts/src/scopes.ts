// What a caller may do in a workspace. A member's role grants a set of scopes; an API key holds scopes
// of its own, never more than its creator's role grants. Every route record that acts in a workspace
// names the one scope it needs (route-scopes.ts); the route pipeline refuses a caller without it (403).
import * as z from "zod";

export const ROLES = ["owner", "admin", "member", "viewer"] as const;
export const Role = z.enum(ROLES).meta({ id: "Role" });
export type Role = z.infer<typeof Role>;

export const SCOPES = [
  "links:read",
  "links:write",
  "analytics:read",
  "domains:read",
  "domains:write",
  "campaigns:read",
  "campaigns:write",
  "overlays:read",
  "overlays:write",
  "webhooks:read",
  "webhooks:write",
  "imports:read",
  "imports:write",
  /** Create and revoke one's own keys (admins revoke anyone's). */
  "keys:write",
  /** Change one's own e-mail and password. */
  "profile:write",
  "workspace:read",
  /** Settings, members below owner, invitations, and reading the audit log (admins answer for it). */
  "workspace:admin",
  /** Delete the workspace, make owners, security policy. */
  "workspace:owner",
] as const;
export const Scope = z.enum(SCOPES).meta({ id: "Scope" });
export type Scope = z.infer<typeof Scope>;

const VIEWER: readonly Scope[] = [
  "links:read",
  "analytics:read",
  "domains:read",
  "campaigns:read",
  "overlays:read",
  "webhooks:read",
  "imports:read",
  "keys:write",
  "profile:write",
  "workspace:read",
];
const MEMBER: readonly Scope[] = [...VIEWER, "links:write", "campaigns:write", "overlays:write"];
const ADMIN: readonly Scope[] = [
  ...MEMBER,
  "domains:write",
  "webhooks:write",
  "imports:write",
  "workspace:admin",
];

/** The scopes each role grants; each role grants all a lower one does. Ordered as SCOPES. */
export const ROLE_SCOPES: Readonly<Record<Role, readonly Scope[]>> = Object.freeze({
  viewer: SCOPES.filter((s) => VIEWER.includes(s)),
  member: SCOPES.filter((s) => MEMBER.includes(s)),
  admin: SCOPES.filter((s) => ADMIN.includes(s)),
  owner: [...SCOPES],
});

/** Roles from most to least powerful: a role may assign only roles at or below its own (owners any). */
export const roleRank = (role: Role): number => ROLES.length - ROLES.indexOf(role);

/** The scopes of `requested` that `granted` lacks (empty when every one is granted). */
export const missingScopes = (requested: readonly Scope[], granted: readonly Scope[]): Scope[] =>
  requested.filter((s) => !granted.includes(s));

/** The header a signed-in session names its workspace with (default: the user's first). */
export const WORKSPACE_HEADER = "x-workspace-id";
