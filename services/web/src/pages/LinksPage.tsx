// Links: one server page at a time (GET /api/v1/links, newest first), so 100k links cost the same as
// ten. Search and the status filter (active, inactive, broken) are query parameters; selection allows
// bulk delete.
import { BULK_MAX_ITEMS, type Link as LinkItem, V1_ROUTES } from "@kurz/contracts";
import { useEffect, useState } from "preact/hooks";
import { Link, useLocation } from "wouter-preact";
import { invalidate, useQuery } from "../api/cache.ts";
import { call, messageOf, urlOf } from "../api/client.ts";
import { useCan } from "../api/session.ts";
import { Confirm } from "../components/Confirm.tsx";
import { CopyButton } from "../components/CopyButton.tsx";
import { Dialog } from "../components/Dialog.tsx";
import { LinkForm } from "../components/LinkForm.tsx";
import { ActionsHeader } from "../components/TableCard.tsx";
import { WorkspaceImage } from "../components/WorkspaceFiles.tsx";
import { BrokenBadge, Failed, fmtDay, Loading, Notice, PageHead } from "./common.tsx";
import { LinkScopeFilters, useLinkScope } from "./manage/LinkScope.tsx";

const PER_PAGE = 20;
/** The status filter: `is_active` for active and inactive, `health=broken` for broken. */
type Filter = "" | "true" | "false" | "broken";

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

type LinksDialog =
  | { kind: "create" }
  | { kind: "edit"; link: LinkItem }
  | { kind: "delete"; links: LinkItem[] }
  | { kind: "qr"; link: LinkItem }
  | null;

export function LinksPage() {
  const canWrite = useCan("links:write");
  const [page, setPage] = useState(1);
  const [searchInput, setSearchInput] = useState("");
  const search = useDebounced(searchInput.trim(), 250);
  const [filter, setFilter] = useState<Filter>("");
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [dialog, setDialog] = useState<LinksDialog>(null);
  const [notice, setNotice] = useState("");

  const scope = useLinkScope();
  useEffect(() => setPage(1), [search, filter, scope.domain, scope.channel]);
  const query = {
    ...scope,
    page: String(page),
    per_page: String(PER_PAGE),
    search: search || undefined,
    is_active: filter === "true" || filter === "false" ? filter : undefined,
    health: filter === "broken" ? ("broken" as const) : undefined,
  };
  const list = useQuery(`links?${JSON.stringify(query)}`, () => call(V1_ROUTES.listLinks, { query }));
  const links = list.data?.data ?? [];
  const meta = list.data?.meta;

  const toggle = async (link: LinkItem) => {
    try {
      await call(V1_ROUTES.updateLink, { params: { id: link.id }, body: { is_active: !link.is_active } });
      setNotice(`${link.short_code} ${link.is_active ? "deactivated" : "activated"}.`);
      invalidate("links", "summary", `link:${link.id}`);
    } catch (err) {
      setNotice(messageOf(err));
    }
  };
  const remove = async (targets: LinkItem[]) => {
    if (targets.length === 1) await call(V1_ROUTES.deleteLink, { params: { id: targets[0]!.id } });
    else await call(V1_ROUTES.bulkDeleteLinks, { body: { ids: targets.map((l) => l.id) } });
    setSelected(new Set());
    setNotice(`Deleted ${targets.length} link${targets.length === 1 ? "" : "s"}.`);
    invalidate("links", "summary");
  };

  return (
    <>
      <PageHead title="Links">
        {canWrite && (
          <button type="button" class="btn primary" onClick={() => setDialog({ kind: "create" })}>
            Create link
          </button>
        )}
      </PageHead>
      <LinksToolbar
        searchInput={searchInput}
        onSearch={setSearchInput}
        filter={filter}
        onFilter={setFilter}
        selectedCount={selected.size}
        onDeleteSelected={() => setDialog({ kind: "delete", links: links.filter((l) => selected.has(l.id)) })}
      />
      <Notice text={notice} />
      {list.error !== undefined && <Failed error={list.error} />}
      <div class="card table-card">
        {list.loading && !list.data ? (
          <Loading what="Loading links" />
        ) : links.length === 0 ? (
          <div class="empty">
            <p>{search || filter ? "No link matches." : "No links yet."}</p>
            {!search && !filter && canWrite && (
              <button type="button" class="btn primary" onClick={() => setDialog({ kind: "create" })}>
                Create your first link
              </button>
            )}
          </div>
        ) : (
          <LinksTable
            links={links}
            selected={selected}
            onSelect={setSelected}
            onDialog={setDialog}
            onToggle={toggle}
          />
        )}
      </div>
      {meta && <LinksPager meta={meta} page={page} onPage={setPage} />}
      <LinksDialogs dialog={dialog} onClose={() => setDialog(null)} onNotice={setNotice} onRemove={remove} />
    </>
  );
}

/** Search, the active filter, the domain and channel scope, and the bulk delete of the selection. */
function LinksToolbar({
  searchInput,
  onSearch,
  filter,
  onFilter,
  selectedCount,
  onDeleteSelected,
}: {
  searchInput: string;
  onSearch: (value: string) => void;
  filter: Filter;
  onFilter: (value: Filter) => void;
  selectedCount: number;
  onDeleteSelected: () => void;
}) {
  return (
    <div class="toolbar">
      <label class="search">
        <span class="sr-only">Search links</span>
        <input
          type="search"
          placeholder="Search URL, code or title"
          value={searchInput}
          onInput={(e) => onSearch(e.currentTarget.value)}
        />
      </label>
      <label>
        <span class="sr-only">Status</span>
        <select value={filter} onChange={(e) => onFilter(e.currentTarget.value as Filter)}>
          <option value="">All links</option>
          <option value="true">Active</option>
          <option value="false">Inactive</option>
          <option value="broken">Broken</option>
        </select>
      </label>
      <LinkScopeFilters />
      {selectedCount > 0 && (
        <button type="button" class="btn danger" onClick={onDeleteSelected}>
          Delete {selectedCount} selected
        </button>
      )}
    </div>
  );
}

/** The page's links, each selectable for the bulk delete (at most `BULK_MAX_ITEMS` at once). */
function LinksTable({
  links,
  selected,
  onSelect,
  onDialog,
  onToggle,
}: {
  links: LinkItem[];
  selected: Set<string>;
  onSelect: (ids: Set<string>) => void;
  onDialog: (dialog: LinksDialog) => void;
  onToggle: (link: LinkItem) => void;
}) {
  const pick = (id: string, on: boolean) => {
    const next = new Set(selected);
    if (on && next.size < BULK_MAX_ITEMS) next.add(id);
    else next.delete(id);
    onSelect(next);
  };
  const allOnPage = links.length > 0 && links.every((l) => selected.has(l.id));
  // Selection serves the bulk delete only: a role that may not change links has no checkboxes.
  const canWrite = useCan("links:write");
  return (
    <table class="links-table">
      <caption class="sr-only">Your links, newest first</caption>
      <thead>
        <tr>
          {canWrite && (
            <th scope="col" class="col-check">
              <input
                type="checkbox"
                aria-label="Select all links on this page"
                checked={allOnPage}
                onChange={(e) =>
                  onSelect(e.currentTarget.checked ? new Set(links.map((l) => l.id)) : new Set())
                }
              />
            </th>
          )}
          <th scope="col">Link</th>
          <th scope="col" class="col-num">
            Clicks
          </th>
          <th scope="col" class="col-hide">
            Created
          </th>
          <th scope="col">Status</th>
          <ActionsHeader />
        </tr>
      </thead>
      <tbody>
        {links.map((l) => (
          <LinkRow
            key={l.id}
            link={l}
            selected={canWrite ? selected.has(l.id) : null}
            onPick={(on) => pick(l.id, on)}
            onDialog={onDialog}
            onToggle={onToggle}
          />
        ))}
      </tbody>
    </table>
  );
}

function LinkRow({
  link: l,
  selected,
  onPick,
  onDialog,
  onToggle,
}: {
  link: LinkItem;
  /** null: the row is not selectable (the role may not change links). */
  selected: boolean | null;
  onPick: (on: boolean) => void;
  onDialog: (dialog: LinksDialog) => void;
  onToggle: (link: LinkItem) => void;
}) {
  return (
    <tr data-testid="link-row">
      {selected !== null && (
        <td class="col-check">
          <input
            type="checkbox"
            aria-label={`Select ${l.short_code}`}
            checked={selected}
            onChange={(e) => onPick(e.currentTarget.checked)}
          />
        </td>
      )}
      <td class="col-link">
        <Link href={`/dashboard/links/${l.id}`} class="short">
          {l.short_url.replace(/^https?:\/\//, "")}
        </Link>
        <div class="dest" title={l.original_url}>
          {l.title && <span class="title">{l.title} · </span>}
          {l.original_url}
        </div>
      </td>
      <td class="col-num">{l.clicks_count.toLocaleString()}</td>
      <td class="col-hide">{fmtDay(l.created_at)}</td>
      <td>
        <span class={`pill ${l.is_active ? "ok" : "off"}`}>{l.is_active ? "Active" : "Inactive"}</span>
        {l.has_password && <span class="pill">Password</span>}
        <BrokenBadge link={l} />
      </td>
      <td class="actions">
        <CopyButton text={l.short_url} label="Copy" what={`short URL of ${l.short_code}`} />
        <LinkMenu link={l} onDialog={onDialog} onToggle={onToggle} />
      </td>
    </tr>
  );
}

/** A row's menu of the less frequent actions. */
function LinkMenu({
  link: l,
  onDialog,
  onToggle,
}: {
  link: LinkItem;
  onDialog: (dialog: LinksDialog) => void;
  onToggle: (link: LinkItem) => void;
}) {
  const [, navigate] = useLocation();
  const canWrite = useCan("links:write");
  return (
    <details class="menu">
      <summary class="btn small" aria-label={`More actions for ${l.short_code}`}>
        •••
      </summary>
      <div class="menu-items">
        <button type="button" onClick={() => navigate(`/dashboard/links/${l.id}`)}>
          Analytics
        </button>
        {canWrite && (
          <button type="button" onClick={() => onDialog({ kind: "edit", link: l })}>
            Edit
          </button>
        )}
        <button type="button" onClick={() => onDialog({ kind: "qr", link: l })}>
          QR code
        </button>
        {canWrite && (
          <>
            <button type="button" onClick={() => onToggle(l)}>
              {l.is_active ? "Deactivate" : "Activate"}
            </button>
            <button
              type="button"
              class="danger-text"
              onClick={() => onDialog({ kind: "delete", links: [l] })}
            >
              Delete
            </button>
          </>
        )}
      </div>
    </details>
  );
}

/** Previous and next when the links fill more than one page, else how many there are. */
function LinksPager({
  meta,
  page,
  onPage,
}: {
  meta: { page: number; total_pages: number; total: number };
  page: number;
  onPage: (page: number) => void;
}) {
  if (meta.total_pages > 1)
    return (
      <nav class="pager" aria-label="Pages">
        <button type="button" class="btn small" disabled={page <= 1} onClick={() => onPage(page - 1)}>
          Previous
        </button>
        <span>
          Page {meta.page} of {meta.total_pages} · {meta.total.toLocaleString()} links
        </span>
        <button
          type="button"
          class="btn small"
          disabled={page >= meta.total_pages}
          onClick={() => onPage(page + 1)}
        >
          Next
        </button>
      </nav>
    );
  if (meta.total > 0)
    return (
      <p class="muted pager-note">
        {meta.total} link{meta.total === 1 ? "" : "s"}
      </p>
    );
  return null;
}

/** The open dialog: create, edit, delete (one link or the selection) or the QR preview. */
function LinksDialogs({
  dialog,
  onClose,
  onNotice,
  onRemove,
}: {
  dialog: LinksDialog;
  onClose: () => void;
  onNotice: (notice: string) => void;
  onRemove: (links: LinkItem[]) => Promise<void>;
}) {
  if (dialog === null) return null;
  switch (dialog.kind) {
    case "create":
      return (
        <Dialog title="Create link" onClose={onClose} wide>
          <LinkForm
            onCancel={onClose}
            onDone={(l) => {
              onClose();
              onNotice(`Created ${l.short_url}`);
            }}
          />
        </Dialog>
      );
    case "edit":
      return (
        <Dialog title={`Edit ${dialog.link.short_code}`} onClose={onClose} wide>
          <LinkForm
            link={dialog.link}
            onCancel={onClose}
            onDone={() => {
              onClose();
              onNotice("Saved.");
            }}
          />
        </Dialog>
      );
    case "delete":
      return (
        <Confirm
          title={dialog.links.length === 1 ? "Delete this link?" : `Delete ${dialog.links.length} links?`}
          confirmLabel="Delete"
          danger
          onConfirm={() => onRemove(dialog.links)}
          onClose={onClose}
        >
          <p>
            {dialog.links.length === 1 ? <code>{dialog.links[0]!.short_url}</code> : "The selected links"}{" "}
            will stop working and {dialog.links.length === 1 ? "its" : "their"} click data is deleted. This
            cannot be undone.
          </p>
        </Confirm>
      );
    case "qr":
      return (
        <Dialog title={`QR code for ${dialog.link.short_code}`} onClose={onClose}>
          <div class="qr-preview">
            <WorkspaceImage
              src={urlOf(V1_ROUTES.getQr, {
                params: { short_code: dialog.link.short_code },
                query: { size: "300" },
              })}
              size={240}
              alt={`QR code for ${dialog.link.short_url}`}
            />
            <Link href={`/dashboard/links/${dialog.link.id}#qr`} class="btn">
              Design and download
            </Link>
          </div>
        </Dialog>
      );
  }
}
