// Campaigns: create and edit (name, rotator slug, public flag), the rotator and public list
// URLs with copy buttons, the campaign's links with a weight each (the rotator's split), assign and
// remove links, delete. Data: the older API's /api/campaign routes with the session.
import { type LegacyCampaign, type LegacyCampaignLink, ROUTES } from "@kurz/contracts";
import { useState } from "preact/hooks";
import { invalidate, useQuery } from "../../api/cache.ts";
import { call, messageOf } from "../../api/client.ts";
import { CopyButton } from "../../components/CopyButton.tsx";
import { DialogDone } from "../../components/Dialog.tsx";
import { RangePicker } from "../../components/RangePicker.tsx";
import { type Range, rangeKey, rangeQuery } from "../../ranges.ts";
import { Failed, Loading, PageHead } from "../common.tsx";
import { ItemActions, type ManageDialog, ManageDialogs } from "./ManageDialogs.tsx";
import { AddLinkForm, RemoveLinkButton, useMembership } from "./Membership.tsx";
import "./manage.css";
import { Field, FormActions, FormError, LIST_QUERY, useFreshQuery, useSubmit } from "./shared.tsx";

const KEY = "campaigns";
const slugOf = (c: LegacyCampaign) => (c.rotator ? (c.rotator.split("/").pop() ?? "") : "");

function CampaignForm({ campaign, onDone }: { campaign?: LegacyCampaign; onDone: () => void }) {
  const [name, setName] = useState(campaign?.name ?? "");
  const [slug, setSlug] = useState(campaign ? slugOf(campaign) : "");
  const [isPublic, setPublic] = useState(campaign?.public ?? false);
  const { busy, error, onSubmit } = useSubmit(async () => {
    if (campaign)
      await call(ROUTES.legacyUpdateCampaign, {
        params: { id: String(campaign.id) },
        body: { name: name.trim(), slug: slug.trim() || null, public: isPublic },
      });
    else
      await call(ROUTES.legacyAddCampaign, {
        body: { name: name.trim(), slug: slug.trim() || undefined, public: isPublic },
      });
    invalidate(KEY);
    onDone();
  });
  return (
    <form class="form" onSubmit={onSubmit} noValidate>
      <FormError error={error} />
      <Field id="campaign-name" label="Name">
        <input
          id="campaign-name"
          required
          maxLength={100}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </Field>
      <Field
        id="campaign-slug"
        label="Rotator slug (optional)"
        hint="The rotator URL /r/<slug> sends each visitor to one of the campaign's links, by weight."
      >
        <input id="campaign-slug" value={slug} onInput={(e) => setSlug(e.currentTarget.value)} />
      </Field>
      <label class="check">
        <input type="checkbox" checked={isPublic} onChange={(e) => setPublic(e.currentTarget.checked)} />{" "}
        Public list page
      </label>
      <FormActions busy={busy} label={campaign ? "Save" : "Create campaign"} onCancel={onDone} />
    </form>
  );
}

function Weight({ campaign, link }: { campaign: LegacyCampaign; link: LegacyCampaignLink }) {
  const [value, setValue] = useState(String(link.weight));
  const [state, setState] = useState("");
  const save = async () => {
    if (value === String(link.weight)) return;
    setState("");
    try {
      await call(ROUTES.legacyWeightCampaignLink, {
        params: { campaignid: String(campaign.id), linkid: link.link_id },
        body: { weight: Number(value) },
      });
      setState("Saved");
      invalidate(`campaign-links:${campaign.id}`);
    } catch (err) {
      setState(messageOf(err));
    }
  };
  const id = `weight-${link.link_id}`;
  return (
    <span class="weight">
      <label for={id} class="sr-only">
        Weight of {link.short_code}
      </label>
      <input
        id={id}
        type="number"
        min={1}
        max={1000}
        value={value}
        onInput={(e) => setValue(e.currentTarget.value)}
        onChange={save}
      />
      <span class="small muted" aria-live="polite">
        {state}
      </span>
    </span>
  );
}

function CampaignLinks({ campaign, onDone }: { campaign: LegacyCampaign; onDone: () => void }) {
  const params = (id: string) => ({ campaignid: String(campaign.id), linkid: id });
  const membership = useMembership({
    assign: (id) => call(ROUTES.legacyAssignCampaign, { params: params(id) }),
    remove: (id) => call(ROUTES.legacyRemoveCampaignLink, { params: params(id) }),
  });
  const { version } = membership;
  const key = `campaign-links:${campaign.id}#${version}`;
  const links = useQuery(key, () =>
    call(ROUTES.legacyListCampaignLinks, { params: { id: String(campaign.id) } }).then((r) => r.data.links),
  );
  const members = links.data ?? [];
  const total = members.reduce((n, l) => n + l.weight, 0);
  // Clicks per link and in total over the same ranges as a link's analytics, fetched anew on each pick.
  const [range, setRange] = useState<Range>({ key: "30d" });
  const clicks = useFreshQuery(`campaign-clicks:${campaign.id}:${rangeKey(range)}#${version}`, () =>
    call(ROUTES.getCampaignAnalytics, { params: { id: String(campaign.id) }, query: rangeQuery(range) }).then(
      (r) => r.data,
    ),
  );
  const clicksOf = (linkId: string) =>
    clicks.data?.links.find((c) => c.link_id === linkId)?.total_clicks.toLocaleString() ?? "–";
  return (
    <>
      <AddLinkForm
        id="campaign-link"
        submitLabel="Add to campaign"
        exclude={new Set(members.map((l) => l.link_id))}
        membership={membership}
      />
      <div class="clicks-head">
        <RangePicker value={range} onChange={setRange} />
        <p class="small" data-testid="campaign-clicks">
          Clicks in total: <strong>{clicks.data ? clicks.data.total_clicks.toLocaleString() : "–"}</strong>
        </p>
      </div>
      {links.error !== undefined && <Failed error={links.error} />}
      {clicks.error !== undefined && <Failed error={clicks.error} />}
      {!links.data ? (
        <Loading what="Loading links" />
      ) : members.length === 0 ? (
        <p class="empty">No links in this campaign.</p>
      ) : (
        <div class="table-card manage-table">
          <table>
            <caption class="sr-only">Links of {campaign.name}</caption>
            <thead>
              <tr>
                <th scope="col">Link</th>
                <th scope="col">Weight</th>
                <th scope="col">Share</th>
                <th scope="col" class="col-num">
                  Clicks
                </th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.map((l) => (
                <tr key={l.link_id} data-testid="campaign-link">
                  <td>
                    <code>{l.short_code}</code> <span class="small muted">{l.title || l.original_url}</span>
                  </td>
                  <td>
                    <Weight campaign={campaign} link={l} />
                  </td>
                  <td>{Math.round((l.weight / total) * 100)}%</td>
                  <td class="col-num">{clicksOf(l.link_id)}</td>
                  <td class="actions">
                    <RemoveLinkButton code={l.short_code} onRemove={() => membership.removeLink(l.link_id)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <DialogDone onDone={onDone} />
    </>
  );
}

export function CampaignsPage() {
  const list = useFreshQuery(KEY, () => call(ROUTES.legacyListCampaigns, { query: LIST_QUERY }));
  const [dialog, setDialog] = useState<ManageDialog<LegacyCampaign>>(null);
  const campaigns = list.data?.data.campaigns ?? [];
  return (
    <>
      <PageHead title="Campaigns">
        <button type="button" class="btn primary" onClick={() => setDialog({ kind: "create" })}>
          Create campaign
        </button>
      </PageHead>
      <p class="muted">
        A campaign bundles links: its rotator URL splits visitors between them by weight (e.g. 80/20 for an
        A/B test), and its public list page shows them all.
      </p>
      {list.error !== undefined && <Failed error={list.error} />}
      {!list.data ? (
        <Loading what="Loading campaigns" />
      ) : campaigns.length === 0 ? (
        <div class="card">
          <p class="empty">No campaigns yet.</p>
        </div>
      ) : (
        <ul class="cards">
          {campaigns.map((c) => (
            <li key={c.id} class="card item" data-testid="campaign-row">
              <div class="item-head">
                <h2 class="item-title">{c.name}</h2>
                <span class={`pill ${c.public ? "ok" : "off"}`}>{c.public ? "Public" : "Private"}</span>
              </div>
              <dl class="record">
                <dt>Rotator</dt>
                <dd>
                  {c.rotator ? (
                    <>
                      <code>{c.rotator}</code> <CopyButton text={c.rotator} label="Copy rotator URL" />
                    </>
                  ) : (
                    <span class="muted">No slug set</span>
                  )}
                </dd>
                <dt>List page</dt>
                <dd>
                  <code>{c.list}</code> <CopyButton text={c.list} label="Copy list URL" />
                </dd>
              </dl>
              <div class="item-actions">
                <ItemActions item={c} open={setDialog} panel={{ label: "Links and weights", joiner: "of" }} />
              </div>
            </li>
          ))}
        </ul>
      )}
      <ManageDialogs
        dialog={dialog}
        onClose={() => setDialog(null)}
        noun="campaign"
        form={(campaign, done) => <CampaignForm campaign={campaign} onDone={done} />}
        panel={{
          title: (c) => `Links in ${c.name}`,
          render: (c, done) => <CampaignLinks campaign={c} onDone={done} />,
        }}
        remove={(c) => call(ROUTES.legacyDeleteCampaign, { params: { id: String(c.id) } })}
        invalidates={[KEY]}
        deleteText={<p>Its rotator and list URLs stop working; the links themselves stay.</p>}
      />
    </>
  );
}
