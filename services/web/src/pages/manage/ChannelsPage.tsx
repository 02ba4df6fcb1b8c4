// Channels (issue 13): list, create, rename (name, description, colour, star), delete, assign links,
// and a way to the links table filtered by the channel. Data: the older API's /api/channel routes with
// the session; a channel's links come from GET /api/v1/links?channel=.
import { type LegacyChannel, ROUTES, V1_ROUTES } from "@kurz/contracts";
import { useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { invalidate, useQuery } from "../../api/cache.ts";
import { call, messageOf } from "../../api/client.ts";
import { ConfirmDelete } from "../../components/ConfirmDelete.tsx";
import { Dialog, DialogDone } from "../../components/Dialog.tsx";
import { RowButton } from "../../components/RowButton.tsx";
import { ActionsHeader, TableCard } from "../../components/TableCard.tsx";
import { Loading, PageHead } from "../common.tsx";
import "./manage.css";
import {
  Field,
  FormActions,
  FormError,
  LIST_QUERY,
  LinkPicker,
  useFreshQuery,
  useSubmit,
} from "./shared.tsx";

const KEY = "channels";

function ChannelForm({ channel, onDone }: { channel?: LegacyChannel; onDone: () => void }) {
  const [name, setName] = useState(channel?.name ?? "");
  const [description, setDescription] = useState(channel?.description ?? "");
  const [color, setColor] = useState(channel?.color ?? "#2563EB");
  const [starred, setStarred] = useState(channel?.starred ?? false);
  const { busy, error, onSubmit } = useSubmit(async () => {
    const body = { name: name.trim(), description: description.trim(), color: color.toUpperCase(), starred };
    if (channel) await call(ROUTES.legacyUpdateChannel, { params: { id: String(channel.id) }, body });
    else await call(ROUTES.legacyAddChannel, { body });
    invalidate(KEY);
    onDone();
  });
  return (
    <form class="form" onSubmit={onSubmit} noValidate>
      <FormError error={error} />
      <Field id="channel-name" label="Name">
        <input
          id="channel-name"
          required
          maxLength={100}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </Field>
      <Field id="channel-description" label="Description (optional)">
        <input
          id="channel-description"
          maxLength={1000}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
      </Field>
      <Field id="channel-color" label="Colour">
        <input
          id="channel-color"
          type="color"
          value={color}
          onInput={(e) => setColor(e.currentTarget.value)}
        />
      </Field>
      <label class="check">
        <input type="checkbox" checked={starred} onChange={(e) => setStarred(e.currentTarget.checked)} />{" "}
        Starred
      </label>
      <FormActions busy={busy} label={channel ? "Save" : "Create channel"} onCancel={onDone} />
    </form>
  );
}

/** The channel's links (the links table's filter) with remove buttons, and a picker to add one. */
function ChannelLinks({ channel, onDone }: { channel: LegacyChannel; onDone: () => void }) {
  const query = { channel: String(channel.id), per_page: "100" };
  // A new key after each change here: the answer cannot be one fetched before the change.
  const [version, setVersion] = useState(0);
  const key = `links?${JSON.stringify(query)}#${version}`;
  const members = useQuery(key, () => call(V1_ROUTES.listLinks, { query }));
  const [linkId, setLinkId] = useState("");
  const ids = new Set((members.data?.data ?? []).map((l) => l.id));
  const params = (id: string) => ({ channelid: String(channel.id), linkid: id });
  const { busy, error, onSubmit } = useSubmit(async () => {
    if (!linkId) throw new Error("Choose a link to add.");
    await call(ROUTES.legacyAssignChannel, { params: params(linkId) });
    setLinkId("");
    setVersion((v) => v + 1);
    invalidate("links");
  });
  const [removeError, setRemoveError] = useState("");
  return (
    <>
      <form class="form inline-form" onSubmit={onSubmit} noValidate>
        <FormError error={error || removeError} />
        <Field id="channel-link" label="Add a link">
          <LinkPicker id="channel-link" value={linkId} onChange={setLinkId} exclude={ids} />
        </Field>
        <button type="submit" class="btn primary" disabled={busy}>
          Add to channel
        </button>
      </form>
      {!members.data ? (
        <Loading what="Loading links" />
      ) : members.data.data.length === 0 ? (
        <p class="empty">No links in this channel.</p>
      ) : (
        <ul class="plain-list">
          {members.data.data.map((l) => (
            <li key={l.id} data-testid="channel-link">
              <span>
                <code>{l.short_code}</code> {l.title ?? l.original_url}
              </span>
              <button
                type="button"
                class="btn small danger-ghost"
                onClick={async () => {
                  setRemoveError("");
                  await call(ROUTES.legacyRemoveChannelLink, { params: params(l.id) }).then(
                    () => {
                      setVersion((v) => v + 1);
                      invalidate("links");
                    },
                    (err: unknown) => setRemoveError(messageOf(err)),
                  );
                }}
              >
                Remove<span class="sr-only"> {l.short_code}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <DialogDone onDone={onDone} />
    </>
  );
}

export function ChannelsPage() {
  const list = useFreshQuery(KEY, () => call(ROUTES.legacyListChannels, { query: LIST_QUERY }));
  const [dialog, setDialog] = useState<
    { kind: "create" } | { kind: "edit" | "links" | "delete"; channel: LegacyChannel } | null
  >(null);
  const channels = list.data?.data.channels ?? [];
  return (
    <>
      <PageHead title="Channels">
        <button type="button" class="btn primary" onClick={() => setDialog({ kind: "create" })}>
          Create channel
        </button>
      </PageHead>
      <p class="muted">
        Group links by where you share them; the links table can show one channel at a time.
      </p>
      <TableCard
        query={list}
        isEmpty={channels.length === 0}
        loading="Loading channels"
        empty="No channels yet."
        caption="Your channels"
        class="manage-table"
      >
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col" class="col-hide">
              Description
            </th>
            <ActionsHeader />
          </tr>
        </thead>
        <tbody>
          {channels.map((c) => (
            <tr key={c.id} data-testid="channel-row">
              <td>
                <span class="swatch" style={{ background: c.color }} aria-hidden="true" />
                {c.name}
                {c.starred && <span class="pill">Starred</span>}
              </td>
              <td class="col-hide">{c.description || <span class="muted">—</span>}</td>
              <td class="actions">
                <Link class="btn small ghost" href={`/dashboard/links?channel=${c.id}`}>
                  View links<span class="sr-only"> of {c.name}</span>
                </Link>
                <RowButton item={`to ${c.name}`} onClick={() => setDialog({ kind: "links", channel: c })}>
                  Assign links
                </RowButton>
                <RowButton item={c.name} onClick={() => setDialog({ kind: "edit", channel: c })}>
                  Edit
                </RowButton>
                <RowButton
                  item={c.name}
                  class="danger-ghost"
                  onClick={() => setDialog({ kind: "delete", channel: c })}
                >
                  Delete
                </RowButton>
              </td>
            </tr>
          ))}
        </tbody>
      </TableCard>
      {dialog?.kind === "create" && (
        <Dialog title="Create channel" onClose={() => setDialog(null)}>
          <ChannelForm onDone={() => setDialog(null)} />
        </Dialog>
      )}
      {dialog?.kind === "edit" && (
        <Dialog title={`Edit ${dialog.channel.name}`} onClose={() => setDialog(null)}>
          <ChannelForm channel={dialog.channel} onDone={() => setDialog(null)} />
        </Dialog>
      )}
      {dialog?.kind === "links" && (
        <Dialog title={`Links in ${dialog.channel.name}`} onClose={() => setDialog(null)} wide>
          <ChannelLinks channel={dialog.channel} onDone={() => setDialog(null)} />
        </Dialog>
      )}
      {dialog?.kind === "delete" && (
        <ConfirmDelete
          title={`Delete ${dialog.channel.name}?`}
          confirmLabel="Delete channel"
          onClose={() => setDialog(null)}
          remove={() => call(ROUTES.legacyDeleteChannel, { params: { id: String(dialog.channel.id) } })}
          invalidates={[KEY, "links"]}
        >
          <p>The links stay; they just leave this channel.</p>
        </ConfirmDelete>
      )}
    </>
  );
}
