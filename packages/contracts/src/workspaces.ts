// Workspaces and their members (docs/workspaces.md). A workspace is what SPEC calls the account: every
// resource belongs to one. A request acts in one workspace: a key's own, or the one a session names
// with X-Workspace-Id (default: the user's first). A workspace's id in a path must be that one.
import * as z from "zod";
import { Timestamp, Uuid } from "./primitives.ts";
import { Role } from "./scopes.ts";
import { PASSWORD_MAX_LENGTH } from "./sudo.ts";

export const WORKSPACE_NAME_MAX_LENGTH = 100;
export const WorkspaceName = z
  .string()
  .trim()
  .min(1)
  .max(WORKSPACE_NAME_MAX_LENGTH)
  .refine((s) => !s.includes("\u0000"), "Must not contain NUL characters");

export const Workspace = z
  .object({
    id: Uuid,
    name: z.string(),
    role: Role.nullable().meta({
      description: "The caller's role in it (a key's: its creator's; null once they have left)",
    }),
    require_two_factor: z.boolean().meta({
      description: "Members without a second factor (and their keys) may use only what lets them add one",
    }),
    created_at: Timestamp,
    audit_retention_days: z.int().meta({ description: "How many days its audit log keeps an event" }),
  })
  .meta({ id: "Workspace" });
export type Workspace = z.infer<typeof Workspace>;

export const WorkspaceIdParams = z.object({ id: Uuid });
export const CreateWorkspaceBody = z
  .strictObject({ name: WorkspaceName })
  .meta({ id: "CreateWorkspaceBody" });
/** How long a workspace's audit log keeps an event, in days (docs/workspaces.md, "Audit log"). */
export const AUDIT_RETENTION_DAYS = { default: 365, min: 1, max: 3650 } as const;
export const UpdateWorkspaceBody = z
  .strictObject({
    name: WorkspaceName.optional(),
    require_two_factor: z.boolean().optional().meta({
      description: "Owners only: require two-factor sign-in of every member (TWO_FACTOR_REQUIRED otherwise)",
    }),

    audit_retention_days: z
      .int()
      .min(AUDIT_RETENTION_DAYS.min)
      .max(AUDIT_RETENTION_DAYS.max)
      .optional()
      .meta({ description: "Owners only: how many days the audit log keeps an event" }),
  })
  .meta({ id: "UpdateWorkspaceBody" });
export const DeletedWorkspace = z.object({ id: Uuid, deleted: z.literal(true) });

export const Member = z
  .object({
    user_id: Uuid,
    email: z.email(),
    role: Role,
    joined_at: Timestamp,
  })
  .meta({ id: "Member" });
export type Member = z.infer<typeof Member>;

export const MemberParams = z.object({ id: Uuid, user_id: Uuid });
export const UpdateMemberBody = z.strictObject({ role: Role }).meta({ id: "UpdateMemberBody" });
export const RemovedMember = z.object({ user_id: Uuid, removed: z.literal(true) });

/** How long an invitation can be accepted. */
export const INVITATION_DAYS = 7;
export const INVITATION_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const CreateInvitationBody = z
  .strictObject({ email: z.email().transform((e) => e.trim().toLowerCase()), role: Role })
  .meta({ id: "CreateInvitationBody" });

export const Invitation = z
  .object({
    id: Uuid,
    email: z.email(),
    role: Role,
    invited_by: Uuid.nullable(),
    created_at: Timestamp,
    expires_at: Timestamp,
  })
  .meta({ id: "Invitation" });
export type Invitation = z.infer<typeof Invitation>;

export const CreatedInvitation = Invitation.extend({
  emailed: z.boolean().meta({ description: "Whether the link was e-mailed to the invited address" }),
  accept_url: z.string().optional().meta({
    description:
      "The page that accepts it, with the single-use token, when the server sends no e-mail: shown once, for the inviter to send",
  }),
}).meta({ id: "CreatedInvitation" });

export const InvitationParams = z.object({ id: Uuid, invitation_id: Uuid });
export const InvitationTokenParams = z.object({ token: z.string().regex(INVITATION_TOKEN_PATTERN) });
export const AcceptInvitationBody = z
  .strictObject({
    password: z.string().min(1).max(PASSWORD_MAX_LENGTH).meta({
      description:
        "The invited person's password: their current one when they already have an account, else the one to create it with",
    }),
  })
  .meta({ id: "AcceptInvitationBody" });
