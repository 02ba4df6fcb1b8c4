// Members of the chosen workspace: who is in it and with what role, invitations out and pending, and
// leaving it. What the person's role may not do is not offered: member and invitation controls show
// only when the role grants workspace:admin (ROLE_SCOPES, the scope those routes need), and the roles
// offered are those the role may give.
import {
  INVITATION_DAYS,
  type Invitation,
  type Member,
  ROLE_SCOPES,
  ROLES,
  type Role,
  roleRank,
  type Session,
  WORKSPACE_ROUTES as W,
} from "@kurz/contracts";
import { useEffect, useState } from "preact/hooks";
import { useLocation } from "wouter-preact";
import { invalidate, type Query, useQuery } from "../../api/cache.ts";
import { call, fieldError, type Output } from "../../api/client.ts";
import { checkSession, switchWorkspace, useSession } from "../../api/session.ts";
import { Confirm } from "../../components/Confirm.tsx";
import { ConfirmDelete } from "../../components/ConfirmDelete.tsx";
import { Dialog, DialogDone } from "../../components/Dialog.tsx";
import { SelectField, TextField } from "../../components/FormField.tsx";
import { RowButton } from "../../components/RowButton.tsx";
import { SecretReveal } from "../../components/SecretReveal.tsx";
import { TableCard } from "../../components/TableCard.tsx";
import { Failed, fmtDate, fmtDay, Notice, PageHead } from "../common.tsx";
import "./members.css";
import { useSubmit } from "../../components/useSubmit.ts";

type CreatedInvitation = Output<typeof W.createInvitation>["data"];

/** The roles `role` may give (owners any; admins theirs and below, never owner). */
const givable = (role: Role) =>
  ROLES.filter((r) => (role === "owner" ? true : r !== "owner" && roleRank(r) <= roleRank(role))).map(
    (r) => ({ value: r, label: r }),
  );

export function MembersPage() {
  const session = useSession();
  // The role may have changed since the session was read (another admin's doing): this page acts on it.
  useEffect(() => void checkSession(), []);
  if (!session) return null;
  return <Members session={session} />;
}

function Members({ session }: { session: Session }) {
  const id = session.account_id;
  const workspace = session.workspaces.find((w) => w.id === id);
  const admin = ROLE_SCOPES[session.role].includes("workspace:admin");
  const members = useQuery("members", () => call(W.listMembers, { params: { id } }).then((r) => r.data));
  const invitations = useQuery(admin ? "invitations" : null, () =>
    call(W.listInvitations, { params: { id } }).then((r) => r.data),
  );
  const [dialog, setDialog] = useState<
    { remove: Member } | { withdraw: Invitation } | { invited: CreatedInvitation } | "leave" | null
  >(null);
  const [notice, setNotice] = useState("");
  const [actionError, setActionError] = useState<unknown>(null);
  const [, navigate] = useLocation();
  // Admins act on members below owner; owners on anyone; nobody here on themselves (they leave).
  const editable = (m: Member) =>
    admin && m.user_id !== session.user_id && (session.role === "owner" || m.role !== "owner");
  const changeRole = async (m: Member, role: Role) => {
    setActionError(null);
    try {
      await call(W.updateMember, { params: { id, user_id: m.user_id }, body: { role } });
      setNotice(`${m.email} is now ${role}.`);
    } catch (err) {
      setActionError(err);
    }
    invalidate("members");
  };
  const list = members.data ?? [];
  return (
    <>
      <PageHead title="Members">
        <button type="button" class="btn danger-ghost" onClick={() => setDialog("leave")}>
          Leave workspace
        </button>
      </PageHead>
      <p class="muted">
        Who works in <strong>{workspace?.name}</strong>. You are {session.role === "owner" ? "an" : "a"}{" "}
        <strong>{session.role}</strong> here.
      </p>
      <Notice text={notice} />
      <TableCard
        query={members}
        actionError={actionError}
        isEmpty={list.length === 0}
        loading="Loading members"
        empty="No members."
        caption={`Members of ${workspace?.name ?? "this workspace"}`}
        columns={["E-mail", "Role", ["Joined", "col-hide"]]}
        actions
      >
        <tbody>
          {list.map((m) => (
            <MemberRow
              key={m.user_id}
              member={m}
              you={m.user_id === session.user_id}
              roles={editable(m) ? givable(session.role) : null}
              onRole={(role) => void changeRole(m, role)}
              onRemove={() => setDialog({ remove: m })}
            />
          ))}
        </tbody>
      </TableCard>
      {admin && (
        <>
          <InviteForm
            workspaceId={id}
            roles={givable(session.role)}
            onInvited={(invited) => setDialog({ invited })}
          />
          <PendingInvitations query={invitations} onWithdraw={(i) => setDialog({ withdraw: i })} />
        </>
      )}
      {dialog !== null && typeof dialog === "object" && "invited" in dialog && (
        <InvitedDialog invited={dialog.invited} onClose={() => setDialog(null)} />
      )}
      {dialog !== null && typeof dialog === "object" && "remove" in dialog && (
        <ConfirmDelete
          title={`Remove ${dialog.remove.email}?`}
          confirmLabel="Remove member"
          onClose={() => setDialog(null)}
          remove={() => call(W.removeMember, { params: { id, user_id: dialog.remove.user_id } })}
          invalidates={["members"]}
        >
          <p>They lose access to this workspace at once, and their API keys in it are revoked.</p>
        </ConfirmDelete>
      )}
      {dialog !== null && typeof dialog === "object" && "withdraw" in dialog && (
        <ConfirmDelete
          title={`Withdraw the invitation of ${dialog.withdraw.email}?`}
          confirmLabel="Withdraw"
          onClose={() => setDialog(null)}
          remove={() => call(W.deleteInvitation, { params: { id, invitation_id: dialog.withdraw.id } })}
          invalidates={["invitations"]}
        >
          <p>The link sent with it stops working.</p>
        </ConfirmDelete>
      )}
      {dialog === "leave" && (
        <Confirm
          title={`Leave ${workspace?.name ?? "this workspace"}?`}
          confirmLabel="Leave workspace"
          danger
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            await call(W.leaveWorkspace, { params: { id } });
            await switchWorkspace(null);
            navigate("/dashboard");
          }}
        >
          <p>You lose access to its links and settings, and your API keys in it are revoked.</p>
        </Confirm>
      )}
    </>
  );
}

/** A member's row: the role as a choice of `roles` when the viewer may change it (null: shown as text). */
function MemberRow({
  member: m,
  you,
  roles,
  onRole,
  onRemove,
}: {
  member: Member;
  you: boolean;
  roles: { value: Role; label: string }[] | null;
  onRole: (role: Role) => void;
  onRemove: () => void;
}) {
  return (
    <tr data-testid="member-row">
      <td>
        {m.email}
        {you && <span class="muted"> (you)</span>}
      </td>
      <td>
        {roles ? (
          <select
            aria-label={`Role of ${m.email}`}
            value={m.role}
            onChange={(e) => onRole(e.currentTarget.value as Role)}
          >
            {roles.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        ) : (
          m.role
        )}
      </td>
      <td class="col-hide">{fmtDay(m.joined_at)}</td>
      <td class="actions">
        {roles && (
          <RowButton item={m.email} class="danger-ghost" onClick={onRemove}>
            Remove
          </RowButton>
        )}
      </td>
    </tr>
  );
}

function PendingInvitations({
  query,
  onWithdraw,
}: {
  query: Query<Invitation[]>;
  onWithdraw: (invitation: Invitation) => void;
}) {
  const pending = query.data ?? [];
  return (
    <>
      <div class="section-head">
        <h2>Pending invitations</h2>
      </div>
      <TableCard
        query={query}
        isEmpty={pending.length === 0}
        loading="Loading invitations"
        empty="No pending invitations."
        caption="Pending invitations"
        columns={["E-mail", "Role", ["Invited", "col-hide"], "Expires"]}
        actions
      >
        <tbody>
          {pending.map((i) => (
            <tr key={i.id} data-testid="invitation-row">
              <td>{i.email}</td>
              <td>{i.role}</td>
              <td class="col-hide">{fmtDate(i.created_at)}</td>
              <td>{fmtDate(i.expires_at)}</td>
              <td class="actions">
                <RowButton item={i.email} class="danger-ghost" onClick={() => onWithdraw(i)}>
                  Withdraw
                </RowButton>
              </td>
            </tr>
          ))}
        </tbody>
      </TableCard>
    </>
  );
}

/** What a new invitation needs next: its link to pass on (no mail configured) or word that it was mailed. */
function InvitedDialog({ invited, onClose }: { invited: CreatedInvitation; onClose: () => void }) {
  return (
    <Dialog title={invited.accept_url ? "Send this link" : "Invitation sent"} onClose={onClose}>
      {invited.accept_url ? (
        <SecretReveal
          secret={invited.accept_url}
          intro={`Send this link to ${invited.email}: it joins them as ${invited.role}.`}
          copyLabel="Copy link"
          testid="accept-url"
        >
          It is shown only once and works once, for {INVITATION_DAYS} days. This server sends no e-mail, so
          the link is yours to pass on.
        </SecretReveal>
      ) : (
        <p data-testid="invitation-emailed">
          {invited.email} was e-mailed a link that joins them as {invited.role}. It works once, for{" "}
          {INVITATION_DAYS} days.
        </p>
      )}
      <DialogDone onDone={onClose} />
    </Dialog>
  );
}

function InviteForm({
  workspaceId,
  roles,
  onInvited,
}: {
  workspaceId: string;
  roles: { value: Role; label: string }[];
  onInvited: (invitation: CreatedInvitation) => void;
}) {
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");
  const { busy, error, submit } = useSubmit(async () => {
    const { data } = await call(W.createInvitation, {
      params: { id: workspaceId },
      body: { email: email.trim(), role },
    });
    setEmail("");
    invalidate("invitations");
    onInvited(data);
  });
  const emailError = fieldError(error, "email");
  return (
    <form class="card form invite-form" onSubmit={submit} noValidate aria-labelledby="invite-title">
      <h2 class="card-title" id="invite-title">
        Invite someone
      </h2>
      {error !== null && !emailError && <Failed error={error} />}
      <div class="invite-fields">
        <TextField
          id="invite-email"
          label="E-mail"
          type="email"
          error={emailError}
          required
          value={email}
          onValue={setEmail}
        />
        <SelectField id="invite-role" label="Role" value={role} options={roles} onValue={setRole} />
        <button type="submit" class="btn primary" disabled={busy}>
          Invite
        </button>
      </div>
    </form>
  );
}
