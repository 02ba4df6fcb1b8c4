// Campaigns: create and edit (name, rotator slug, public flag), the rotator and public list
// URLs with copy buttons, the campaign's links with a weight each (the rotator's split), assign and
// remove links, delete. Data: the older API's /api/campaign routes with the session.
import {
  ALIAS_MAX_LENGTH,
  CAMPAIGN_ANALYTICS_LINKS_MAX,
  CAMPAIGN_NAME_MAX,
  CAMPAIGN_WEIGHT_MAX,
  type CampaignAnalytics,
  type LegacyCampaign,
  type LegacyCampaignLink,
  ROUTES,
} from "@kurz/contracts";
import { useEffect, useRef, useState } from "preact/hooks";
import { invalidate, useQuery } from "../../api/cache.ts";
import { ApiFailure, call, messageOf } from "../../api/client.ts";
import { CopyButton } from "../../components/CopyButton.tsx";
import { DialogDone } from "../../components/Dialog.tsx";
import { RangePicker } from "../../components/RangePicker.tsx";
import { type Range, rangeKey, rangeQuery } from "../../ranges.ts";
import { ManagePage } from "./ManagePage.tsx";
import { AddLinkForm, RemoveLinkButton, useMembership } from "./Membership.tsx";
import "./manage.css";
import { ManageForm, TextField } from "./forms.tsx";
import { CardList, PanelTable, useFreshList, useFreshQuery } from "./lists.tsx";

const KEY = "campaigns";
const slugOf = (c: LegacyCampaign) => (c.rotator ? (c.rotator.split("/").pop() ?? "") : "");

function CampaignForm({ campaign, onDone }: { campaign?: LegacyCampaign; onDone: () => void }) {
  const [name, setName] = useState(campaign?.name ?? "");
  const [slug, setSlug] = useState(campaign ? slugOf(campaign) : "");
  const [isPublic, setPublic] = useState(campaign?.public ?? false);
  const save = async () => {
    if (campaign)
      await call(ROUTES.legacyUpdateCampaign, {
        params: { id: String(campaign.id) },
        body: { name: name.trim(), slug: slug.trim() || null, public: isPublic },
      });
    else
      await call(ROUTES.legacyAddCampaign, {
        body: { name: name.trim(), slug: slug.trim() || undefined, public: isPublic },
      });
  };
  return (
    <ManageForm save={save} stale={KEY} label={campaign ? "Save" : "Create campaign"} onDone={onDone}>
      <TextField
        id="campaign-name"
        label="Name"
        required
        maxLength={CAMPAIGN_NAME_MAX}
        value={name}
        onValue={setName}
      />
      <TextField
        id="campaign-slug"
        label="Rotator slug (optional)"
        hint="The rotator URL /r/<slug> sends each visitor to one of the campaign's links, by weight."
        maxLength={ALIAS_MAX_LENGTH}
        value={slug}
        onValue={setSlug}
      />
      <label class="check">
        <input type="checkbox" checked={isPublic} onChange={(e) => setPublic(e.currentTarget.checked)} />{" "}
        Public list page
      </label>
    </ManageForm>
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
        max={CAMPAIGN_WEIGHT_MAX}
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

/**
 * While analytics lags behind the links, the dialog asks again after 0.5 s, then waits twice as long
 * each time up to 5 s, for about two minutes: the lag is normally well under a second.
 */
const catchUpDelay = (tries: number) => Math.min(500 * 2 ** tries, 5000);
const CATCH_UP_TRIES = 30;

/**
 * Analytics' answer, or null while analytics has not heard of the campaign: it learns a campaign and its
 * links from management's events, a moment after each change, and answers 404 until the first arrives
 * (the same 404 as for an unknown campaign). The dialog's campaign exists, so that is "no clicks yet".
 * Wrapped, so each answer is a new value even when two say the same.
 */
async function campaignClicks(id: number, range: Range): Promise<{ answer: CampaignAnalytics | null }> {
  try {
    const res = await call(ROUTES.getCampaignAnalytics, {
      params: { id: String(id) },
      query: rangeQuery(range),
    });
    return { answer: res.data };
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 404) return { answer: null };
    throw err;
  }
}

/** Whether analytics counts the links the campaign has now (as many of them as it reports). */
function inStep(answer: CampaignAnalytics | null, members: readonly LegacyCampaignLink[]): boolean {
  if (answer === null) return members.length === 0;
  const ids = new Set(members.map((l) => l.link_id));
  return (
    answer.links.every((l) => ids.has(l.link_id)) &&
    answer.links.length === Math.min(members.length, CAMPAIGN_ANALYTICS_LINKS_MAX)
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
  const clicksKey = `campaign-clicks:${campaign.id}:${rangeKey(range)}#${version}`;
  const clicks = useFreshQuery(clicksKey, () => campaignClicks(campaign.id, range));
  const answer = clicks.data?.answer;
  // Until analytics has the links the list shows, ask again after each answer, a bounded number of times.
  const caughtUp = answer === undefined || !links.data || inStep(answer, members);
  const tries = useRef({ key: "", n: 0 });
  useEffect(() => {
    if (tries.current.key !== clicksKey) tries.current = { key: clicksKey, n: 0 };
    if (caughtUp || tries.current.n >= CATCH_UP_TRIES) return;
    const timer = setTimeout(() => {
      tries.current.n += 1;
      invalidate(clicksKey);
    }, catchUpDelay(tries.current.n));
    return () => clearTimeout(timer);
  }, [clicksKey, clicks.data, caughtUp]);
  // A link analytics does not report yet has no clicks yet; one beyond what it reports has none shown.
  const clicksOf = (linkId: string, position: number) => {
    if (answer === undefined) return "–";
    const counted = answer?.links.find((c) => c.link_id === linkId);
    if (counted) return counted.total_clicks.toLocaleString();
    return position < CAMPAIGN_ANALYTICS_LINKS_MAX ? "0" : "–";
  };
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
          Clicks in total:{" "}
          <strong>{answer === undefined ? "–" : (answer?.total_clicks ?? 0).toLocaleString()}</strong>
        </p>
      </div>
      <PanelTable
        failures={[links.error, clicks.error]}
        loaded={links.data !== undefined}
        isEmpty={members.length === 0}
        loading="Loading links"
        empty="No links in this campaign."
        caption={`Links of ${campaign.name}`}
        columns={["Link", "Weight", "Share", ["Clicks", "col-num"]]}
        actions
      >
        <tbody>
          {members.map((l, i) => (
            <tr key={l.link_id} data-testid="campaign-link">
              <td>
                <code>{l.short_code}</code> <span class="small muted">{l.title || l.original_url}</span>
              </td>
              <td>
                <Weight campaign={campaign} link={l} />
              </td>
              <td>{Math.round((l.weight / total) * 100)}%</td>
              <td class="col-num">{clicksOf(l.link_id, i)}</td>
              <td class="actions">
                <RemoveLinkButton code={l.short_code} onRemove={() => membership.removeLink(l.link_id)} />
              </td>
            </tr>
          ))}
        </tbody>
      </PanelTable>
      <DialogDone onDone={onDone} />
    </>
  );
}

export function CampaignsPage() {
  const list = useFreshList(KEY);
  return (
    <ManagePage<LegacyCampaign>
      title="Campaigns"
      intro="A campaign bundles links: its rotator URL splits visitors between them by weight (e.g. 80/20 for an A/B test), and its public list page shows them all."
      noun="campaign"
      write="campaigns:write"
      form={(campaign, done) => <CampaignForm campaign={campaign} onDone={done} />}
      panel={{
        label: "Links and weights",
        joiner: "of",
        title: (c) => `Links in ${c.name}`,
        render: (c, done) => <CampaignLinks campaign={c} onDone={done} />,
      }}
      remove={(c) => call(ROUTES.legacyDeleteCampaign, { params: { id: String(c.id) } })}
      invalidates={[KEY]}
      deleteText={<p>Its rotator and list URLs stop working; the links themselves stay.</p>}
    >
      {(actions) => (
        <CardList
          query={list}
          loading="Loading campaigns"
          empty="No campaigns yet."
          card={(c) => (
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
              <div class="item-actions">{actions(c)}</div>
            </li>
          )}
        />
      )}
    </ManagePage>
  );
}
