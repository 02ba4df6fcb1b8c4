// The signed-in frame: a skip link, the top bar and the page. The top bar holds the everyday sections,
// "Settings" and the workspace switcher; the workspace's configuration (members, audit log, API keys,
// domains, webhooks, import, export) sits behind "Settings", listed beside the page while one of those pages is open. Every page keeps its own URL, so deep
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
  /** Listed only for roles that hold it (the page itself answers 403 to the others). */
  scope?: Scope;
}

const SECTIONS: NavEntry[] = [
  { href: "/dashboard", label: "Overview" },
  { href: "/dashboard/links", label: "Links" },
  { href: "/dashboard/campaigns", label: "Campaigns" },
  { href: "/dashboard/channels", label: "Channels" },
  { href: "/dashboard/overlays", label: "Overlays" },
];

/** The settings pages, in the order the settings navigation lists them; "Settings" opens the first. */
const SETTINGS: NavEntry[] = [
  { href: "/dashboard/account", label: "Account" },
  { href: "/dashboard/members", label: "Members" },
  { href: "/dashboard/audit-log", label: "Audit log", scope: "workspace:admin" },
  { href: "/dashboard/keys", label: "API keys" },
  { href: "/dashboard/domains", label: "Domains" },
  { href: "/dashboard/webhooks", label: "Webhooks" },
  { href: "/dashboard/import", label: "Import" },
  { href: "/dashboard/export", label: "Export" },
];

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
  const inSettings = SETTINGS.some((s) => isAt(location, s.href));
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
                  href={SETTINGS[0]!.href}
                  class="nav-link"
                  // The section holding the page, not the page itself: that one is marked in the settings list.
                  aria-current={inSettings ? "true" : undefined}
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
        {session === undefined ? (
          <p class="boot">Loading…</p>
        ) : inSettings ? (
          <div class="settings-layout">
            <nav aria-label="Settings" class="settings-nav">
              <p class="settings-title" aria-hidden="true">
                Settings
              </p>
              <ul class="nav-list">
                <NavLinks
                  entries={SETTINGS.filter((s) => !s.scope || ROLE_SCOPES[session.role].includes(s.scope))}
                  location={location}
                />
              </ul>
            </nav>
            <div class="settings-page">{children}</div>
          </div>
        ) : (
          children
        )}
      </main>
    </>
  );
}
