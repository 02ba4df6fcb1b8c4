// Leaving for good (docs/workspaces.md, "Leaving for good"): a signed-in person deletes their user.
// The workspaces they alone own go with everything in them; those shared with other owners stay, and
// the person's memberships and keys there go. A session only (never a key), the password confirmed,
// and the person's e-mail typed again, so neither a stolen cookie nor a slip of the mouse erases them.
import * as z from "zod";
import { successEnvelope } from "./envelope.ts";
import { Uuid } from "./primitives.ts";
import { defineRoute } from "./routes.ts";
import { Role } from "./scopes.ts";
import { CurrentPassword, SUDO_WINDOW_MINUTES } from "./sudo.ts";

const V1 = "/api/v1";

/** The route that exports a workspace's links, offered before anything is deleted. */
export const LINKS_EXPORT_PATH = `${V1}/exports/links`;

/**
 * The id written in place of a deleted workspace's where a row must outlive it (a retired short code,
 * a link's analytics tombstone): no workspace has it, so the row is reserved from everyone and names
 * no one.
 */
export const NO_WORKSPACE = "00000000-0000-0000-0000-000000000000";

const GoingWorkspace = z.object({
  id: Uuid,
  name: z.string(),
  links: z.int().nonnegative(),
  /** Members other than the person leaving: they lose the workspace too. */
  other_members: z.int().nonnegative(),
});

export const DeletionPreview = z
  .object({
    email: z.string().meta({ description: "What `confirm` must be" }),
    workspaces_deleted: z.array(GoingWorkspace).meta({
      description: "Workspaces the person alone owns and no one else uses: deleted with everything in them",
    }),
    workspaces_shared: z.array(GoingWorkspace).meta({
      description:
        "Workspaces the person alone owns that have other members: the delete is refused (409) unless delete_shared_workspaces is true; transfer ownership first to keep them",
    }),
    workspaces_left: z
      .array(z.object({ id: Uuid, name: z.string(), role: Role }))
      .meta({ description: "Workspaces with another owner: the person's membership and keys there go" }),
    export: z
      .object({ method: z.literal("GET"), path: z.literal(LINKS_EXPORT_PATH) })
      .meta({ description: "Export each deleted workspace's links first (X-Workspace-Id names it)" }),
  })
  .meta({ id: "DeletionPreview" });
export type DeletionPreview = z.infer<typeof DeletionPreview>;

export const DeleteUserBody = z
  .object({
    confirm: z.string().max(320).meta({ description: "The person's e-mail address, typed again" }),
    current_password: CurrentPassword.optional().meta({
      description: `Required unless the password was confirmed in the last ${SUDO_WINDOW_MINUTES} minutes (POST /api/v1/auth/confirm)`,
    }),
    delete_shared_workspaces: z.boolean().optional().meta({
      description:
        "Also delete the workspaces the person alone owns that have other members (their members lose them)",
    }),
  })
  .meta({ id: "DeleteUserBody" });
export type DeleteUserBody = z.infer<typeof DeleteUserBody>;

export const DeletedUser = z
  .object({
    deleted: z.literal(true),
    workspaces_deleted: z.array(Uuid),
    workspaces_left: z.array(Uuid),
  })
  .meta({ id: "DeletedUser" });
export type DeletedUser = z.infer<typeof DeletedUser>;

export const ACCOUNT_DELETION_ROUTES = {
  getDeletionPreview: defineRoute({
    method: "GET",
    path: `${V1}/users/me/deletion-preview`,
    tag: "auth",
    summary:
      "What deleting the signed-in user would remove: the workspaces that go with them, those they leave, and the export to take first",
    auth: "session",
    status: 200,
    response: successEnvelope(DeletionPreview),
    errors: [],
  }),
  deleteUser: defineRoute({
    method: "DELETE",
    path: `${V1}/users/me`,
    tag: "auth",
    summary:
      "Delete the signed-in user for good, with the workspaces they alone own and everything in them (links, clicks, domains, webhooks, keys); a session only, the password confirmed and the e-mail typed in `confirm`",
    auth: "session",
    body: DeleteUserBody,
    status: 200,
    response: successEnvelope(DeletedUser),
    errors: ["VALIDATION_ERROR", "FORBIDDEN", "CONFLICT", "RATE_LIMIT_EXCEEDED", "SERVICE_UNAVAILABLE"],
  }),
} as const;

/**
 * On the `links` topic after the deleted workspace's `link.deleted` events (the same transaction):
 * analytics deletes every row of the workspace. Carries the id alone; handling it twice is harmless.
 */
export const AccountDeletedEvent = z.object({
  v: z.literal(1),
  type: z.literal("account.deleted"),
  account_id: Uuid,
  occurred_at: z.iso.datetime(),
  /** The workspace's campaigns: analytics keeps a nameless tombstone of each, outranking late events. */
  campaign_ids: z.array(z.int().nonnegative()).optional(),
});
export type AccountDeletedEvent = z.infer<typeof AccountDeletedEvent>;

/** Whether a `links` topic message claims to be a workspace's deletion, by its type alone. */
export function isAccountDeletedMessage(value: unknown): boolean {
  return (value as { type?: unknown } | null)?.type === "account.deleted";
}
