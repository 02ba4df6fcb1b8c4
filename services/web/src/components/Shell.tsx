// The signed-in frame: a skip link, the top bar and the page. The top bar holds the everyday sections,
// "Settings" and the workspace switcher; the person's account and the workspace's configuration
// (its general settings, members, audit log, API keys, domains, webhooks, import, export, single sign-on) sit behind "Settings", listed in two groups
// beside the page while one of those pages is open (a single choice on a phone). Every page keeps its own URL, so deep
// links and bookmarks work whichever group a page belongs to. On a phone the sections fold behind a
// menu button, so the bar never scrolls sideways.
import { ROLE_SCOPES, type Scope, type Session } from "@kurz/contracts";
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { Link, useLocation } from "wouter-preact";
import { drawing, signOut } from "../api/session.ts";
import { useEscape } from "./useEscape.ts";
import { WorkspaceSwitcher } from "./WorkspaceSwitcher.tsx";

interface NavEntry {
  href: string;
  label: string;
  /** Listed only to roles that hold it (the scope the page's routes need). */
  scope?: Scope;
}

const SECTIONS: NavEntry[] = [
  { href: "/dashboard", label: "Overview" },
  { href: "/dashboard/links", label: "Links" },
  { href: "/dashboard/campaigns", label: "Campaigns" },
  { href: "/dashboard/channels", label: "Channels" },
  { href: "/dashboard/overlays", label: "Overlays" },
];

/**
 * The settings pages in two groups, in the order the settings navigation lists them: the person's own,
 * then the chosen workspace's. "Settings" opens the first.
 */
const SETTINGS: { title: string; entries: NavEntry[] }[] = [
  {
    title: "Your account",
    entries: [
      { href: "/dashboard/account", label: "Account" },
      { href: "/dashboard/security", label: "Security" },
    ],
  },
  {
    title: "Workspace",
    entries: [
      { href: "/dashboard/workspace", label: "General" },
      { href: "/dashboard/members", label: "Members" },
      { href: "/dashboard/audit-log", label: "Audit log", scope: "workspace:admin" },
      { href: "/dashboard/keys", label: "API keys" },
      { href: "/dashboard/domains", label: "Domains" },
      { href: "/dashboard/webhooks", label: "Webhooks" },
      { href: "/dashboard/import", label: "Import" },
      { href: "/dashboard/export", label: "Export" },
      { href: "/dashboard/sso", label: "Single sign-on", scope: "workspace:owner" },
    ],
  },
];
const SETTINGS_PAGES = SETTINGS.flatMap((g) => g.entries);

/** Whether `href` is the page at `location` or one of its sub-pages (a link, a webhook's log). */
function isAt(location: string, href: string): boolean {
  return href === "/dashboard" ? location === href : location === href || location.startsWith(`${href}/`);
}

function NavLinks({
  entries,
  location,
  onChoose,
}: {
  entries: NavEntry[];
  location: string;
  onChoose?: () => void;
}) {
  return (
    <>
      {entries.map((n) => (
        <li key={n.href}>
          <Link
            href={n.href}
            class="nav-link"
            aria-current={isAt(location, n.href) ? "page" : undefined}
            onClick={onChoose}
          >
            {n.label}
          </Link>
        </li>
      ))}
    </>
  );
}

/**
 * A workspace that requires two-factor sign-in refuses a member without a second factor everything but
 * adding one: the prompt says so on every page of it and leads to Settings → Security.
 */
function TwoFactorPrompt({ session }: { session: Session }) {
  const workspace = session.workspaces.find((w) => w.id === session.account_id);
  if (!workspace?.require_two_factor || session.two_factor) return null;
  return (
    <p class="notice two-factor-banner" role="alert" data-testid="two-factor-prompt">
      {workspace.name} requires two-factor sign-in.{" "}
      <Link href="/dashboard/security">Set up an authenticator app or a passkey</Link> to use it.
    </p>
  );
}

/** `session` is undefined while the first check runs (main.tsx). */
export function Shell({ session, children }: { session: Session | undefined; children: ComponentChildren }) {
  const [location, navigate] = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  // A chosen section closes the phone menu (so does going back): the page is what the person wants to see.
  useEffect(() => setMenuOpen(false), [location]);
  // Escape closes the open menu and gives the focus back to its button.
  useEscape(menuOpen, () => {
    setMenuOpen(false);
    menuButton.current?.focus();
  });
  // Choosing the page already shown changes no location, and closes the menu all the same.
  const closeMenu = () => setMenuOpen(false);
  const settingsPage = SETTINGS_PAGES.find((s) => isAt(location, s.href));
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <div class="topbar-inner">
          <Link href="/dashboard" class="brand">
            <span class="logo" aria-hidden="true">
              k
            </span>
            Kurz
          </Link>
          <button
            ref={menuButton}
            type="button"
            class="btn small menu-button"
            aria-expanded={menuOpen}
            aria-controls="primary-nav"
            onClick={() => setMenuOpen(!menuOpen)}
          >
            <span class="menu-icon" aria-hidden="true" />
            Menu
          </button>
          <nav id="primary-nav" aria-label="Dashboard" class={`primary-nav${menuOpen ? " open" : ""}`}>
            <ul class="nav-list">
              <NavLinks entries={SECTIONS} location={location} onChoose={closeMenu} />
              <li>
                <Link
                  href={SETTINGS_PAGES[0]!.href}
                  class="nav-link"
                  // The section holding the page, not the page itself: that one is marked in the settings list.
                  aria-current={settingsPage ? "true" : undefined}
                  onClick={closeMenu}
                >
                  Settings
                </Link>
              </li>
            </ul>
          </nav>
          <div class="who">
            {session && <WorkspaceSwitcher session={session} />}
            <button
              type="button"
              class="btn small ghost"
              onClick={async () => {
                await signOut().catch(() => undefined);
                navigate("/login", { replace: true });
              }}
            >
              Sign out
            </button>
          </div>
        </div>
      </header>
      {/* Switching workspace draws the page afresh: it keeps no state of the other one. A page is drawn
          once the session says which workspace it shows (a stored choice may be one the person left):
          its reads then all name that workspace, and none races the check that falls back from it. */}
      <main id="main" class="page" tabIndex={-1} key={drawing()}>
        {session && <TwoFactorPrompt session={session} />}
        {session === undefined ? (
          <p class="boot">Loading…</p>
        ) : settingsPage ? (
          <div class="settings-layout">
            <SettingsNav session={session} location={location} current={settingsPage} onChoose={navigate} />
            <div class="settings-page">{children}</div>
          </div>
        ) : (
          children
        )}
      </main>
    </>
  );
}

/**
 * The settings pages beside the page, grouped under their headings; on a phone, where ten pages would
 * wrap over several rows, one choice above the page instead.
 */
function SettingsNav({
  session,
  location,
  current,
  onChoose,
}: {
  session: Session;
  location: string;
  current: NavEntry;
  onChoose: (href: string) => void;
}) {
  const groups = SETTINGS.map((g) => ({
    ...g,
    entries: g.entries.filter((n) => !n.scope || ROLE_SCOPES[session.role].includes(n.scope)),
  }));
  return (
    <nav aria-label="Settings" class="settings-nav">
      {groups.map((group) => (
        <div class="settings-group" key={group.title}>
          <p class="settings-title" id={`settings-${group.entries[0]!.label}`}>
            {group.title}
          </p>
          <ul class="nav-list" aria-labelledby={`settings-${group.entries[0]!.label}`}>
            <NavLinks entries={group.entries} location={location} />
          </ul>
        </div>
      ))}
      <div class="settings-picker">
        <select
          aria-label="Settings page"
          value={current.href}
          onChange={(e) => onChoose(e.currentTarget.value)}
        >
          {groups.map((group) => (
            <optgroup key={group.title} label={group.title}>
              {group.entries.map((n) => (
                <option key={n.href} value={n.href}>
                  {n.label}
                </option>
              ))}
            </optgroup>
          ))}
        </select>
      </div>
    </nav>
  );
}
