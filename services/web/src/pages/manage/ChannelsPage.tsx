// Channels: list, create, rename (name, description, colour, star), delete, assign links,
// and a way to the links table filtered by the channel. Data: the older API's /api/channel routes with
// the session; a channel's links come from GET /api/v1/links?channel=.
import {
  CHANNEL_DESCRIPTION_MAX,
  CHANNEL_NAME_MAX,
  type LegacyChannel,
  ROUTES,
  V1_ROUTES,
} from "@kurz/contracts";
import { useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { invalidate, useQuery } from "../../api/cache.ts";
import { call } from "../../api/client.ts";
import { DialogDone } from "../../components/Dialog.tsx";
import { TableCard } from "../../components/TableCard.tsx";
import { ManagePage } from "./ManagePage.tsx";
import { AddLinkForm, RemoveLinkButton, useMembership } from "./Membership.tsx";
import "./manage.css";
import { ColorField, ManageForm, TextField } from "./forms.tsx";
import { PanelList, useFreshList } from "./lists.tsx";

const KEY = "channels";

function ChannelForm({ channel, onDone }: { channel?: LegacyChannel; onDone: () => void }) {
  const [name, setName] = useState(channel?.name ?? "");
  const [description, setDescription] = useState(channel?.description ?? "");
  const [color, setColor] = useState(channel?.color ?? "#2563EB");
  const [starred, setStarred] = useState(channel?.starred ?? false);
  const save = async () => {
    const body = { name: name.trim(), description: description.trim(), color: color.toUpperCase(), starred };
    if (channel) await call(ROUTES.legacyUpdateChannel, { params: { id: String(channel.id) }, body });
    else await call(ROUTES.legacyAddChannel, { body });
  };
  return (
    <ManageForm save={save} stale={KEY} label={channel ? "Save" : "Create channel"} onDone={onDone}>
      <TextField
        id="channel-name"
        label="Name"
        required
        maxLength={CHANNEL_NAME_MAX}
        value={name}
        onValue={setName}
      />
      <TextField
        id="channel-description"
        label="Description (optional)"
        maxLength={CHANNEL_DESCRIPTION_MAX}
        value={description}
        onValue={setDescription}
      />
      <ColorField id="channel-color" label="Colour" value={color} onValue={setColor} />
      <label class="check">
        <input type="checkbox" checked={starred} onChange={(e) => setStarred(e.currentTarget.checked)} />{" "}
        Starred
      </label>
    </ManageForm>
  );
}

/** The channel's links (the links table's filter) with remove buttons, and a picker to add one. */
function ChannelLinks({ channel, onDone }: { channel: LegacyChannel; onDone: () => void }) {
  const params = (id: string) => ({ channelid: String(channel.id), linkid: id });
  const membership = useMembership({
    assign: (id) => call(ROUTES.legacyAssignChannel, { params: params(id) }),
    remove: (id) => call(ROUTES.legacyRemoveChannelLink, { params: params(id) }),
    onChanged: () => invalidate("links"),
  });
  const query = { channel: String(channel.id), per_page: "100" };
  const key = `links?${JSON.stringify(query)}#${membership.version}`;
  const members = useQuery(key, () => call(V1_ROUTES.listLinks, { query }));
  const links = members.data?.data ?? [];
  return (
    <>
      <AddLinkForm
        id="channel-link"
        submitLabel="Add to channel"
        exclude={new Set(links.map((l) => l.id))}
        membership={membership}
      />
      <PanelList
        failures={[members.error]}
        loaded={members.data !== undefined}
        isEmpty={links.length === 0}
        loading="Loading links"
        empty="No links in this channel."
      >
        <ul class="plain-list">
          {links.map((l) => (
            <li key={l.id} data-testid="channel-link">
              <span>
                <code>{l.short_code}</code> {l.title ?? l.original_url}
              </span>
              <RemoveLinkButton code={l.short_code} onRemove={() => membership.removeLink(l.id)} />
            </li>
          ))}
        </ul>
      </PanelList>
      <DialogDone onDone={onDone} />
    </>
  );
}

export function ChannelsPage() {
  const list = useFreshList(KEY);
  const channels = list.data ?? [];
  return (
    <ManagePage<LegacyChannel>
      title="Channels"
      intro="Group links by where you share them; the links table can show one channel at a time."
      noun="channel"
      write="campaigns:write"
      form={(channel, done) => <ChannelForm channel={channel} onDone={done} />}
      panel={{
        label: "Assign links",
        joiner: "to",
        title: (c) => `Links in ${c.name}`,
        render: (c, done) => <ChannelLinks channel={c} onDone={done} />,
      }}
      remove={(c) => call(ROUTES.legacyDeleteChannel, { params: { id: String(c.id) } })}
      invalidates={[KEY, "links"]}
      deleteText={<p>The links stay; they just leave this channel.</p>}
    >
      {(actions) => (
        <TableCard
          query={list}
          isEmpty={channels.length === 0}
          loading="Loading channels"
          empty="No channels yet."
          caption="Your channels"
          columns={["Name", ["Description", "col-hide"]]}
          actions
          class="manage-table"
        >
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
                  {actions(c)}
                </td>
              </tr>
            ))}
          </tbody>
        </TableCard>
      )}
    </ManagePage>
  );
}
