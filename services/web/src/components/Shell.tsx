// The signed-in frame: a skip link, the navigation (a top bar that wraps on phones) and the page.
import type { Session } from "@kurz/contracts";
import type { ComponentChildren } from "preact";
import { Link, useLocation } from "wouter-preact";
import { signOut } from "../api/session.ts";
import { MANAGE_NAV } from "../pages/manage/nav.ts";

const NAV = [
  { href: "/dashboard", label: "Overview" },
  { href: "/dashboard/links", label: "Links" },
  ...MANAGE_NAV,
  { href: "/dashboard/keys", label: "API keys" },
  { href: "/dashboard/webhooks", label: "Webhooks" },
  { href: "/dashboard/import", label: "Import" },
  { href: "/dashboard/export", label: "Export" },
  { href: "/dashboard/account", label: "Account" },
];

/** `session` is undefined while the first check runs (main.tsx). */
export function Shell({ session, children }: { session: Session | undefined; children: ComponentChildren }) {
  const [location, navigate] = useLocation();
  const current = (href: string) =>
    href === "/dashboard" ? location === "/dashboard" : location === href || location.startsWith(`${href}/`);
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
          <nav aria-label="Dashboard">
            {NAV.map((n) => (
              <Link
                key={n.href}
                href={n.href}
                class="nav-link"
                aria-current={current(n.href) ? "page" : undefined}
              >
                {n.label}
              </Link>
            ))}
          </nav>
          <div class="who">
            <span class="email" title={session?.email}>
              {session?.email}
            </span>
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
      <main id="main" class="page" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
