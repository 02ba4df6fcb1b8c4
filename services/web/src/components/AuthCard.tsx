// The card the signed-out pages share (sign-in, sign-up, joining a workspace, getting back in): the
// brand, the page's heading, and what the page asks.
import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";

export function AuthCard({
  title,
  heading = title,
  wide,
  children,
}: {
  /** The document's title, before " · Kurz". */
  title: string;
  /** The page's heading, when other than the title. */
  heading?: string;
  wide?: boolean;
  children: ComponentChildren;
}) {
  useEffect(() => {
    document.title = `${title} · Kurz`;
  }, [title]);
  return (
    <div class="auth">
      <main class={wide ? "auth-card wide" : "auth-card"} id="main">
        <div class="brand big" aria-hidden="true">
          <span class="logo">k</span> Kurz
        </div>
        <h1>{heading}</h1>
        {children}
      </main>
    </div>
  );
}
