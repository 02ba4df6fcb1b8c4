// The page a browser gets for a link with a CTA overlay (decision 0026): the destination framed
// beneath the call to action when the destination allows framing (management checked it when the link
// was saved), otherwise an interstitial with the call to action and a "Continue" link. Rendered only
// for such links, never on the plain redirect path.
//
// Everything from the overlay or the link is escaped; colours are `#RRGGBB` (contracts) and are
// checked again here. The page runs no script at all, and its own CSP says so: styles only with this
// response's nonce, frames only of the destination's origin, forms only back to this origin.
import { randomBytes } from "node:crypto";
import { type OverlayRecord, parseUrl } from "@kurz/contracts";
import { htmlPageHeaders } from "@kurz/service-kit";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const HEX = /^#[0-9A-Fa-f]{6}$/;
const colour = (c: string, fallback: string) => (HEX.test(c) ? c : fallback);

/** An http(s) URL to put in an attribute, or null (nothing else is ever linked or framed). */
function safeUrl(raw: string | null): URL | null {
  const url = raw === null ? null : parseUrl(raw);
  return url !== null && (url.protocol === "http:" || url.protocol === "https:") ? url : null;
}

export type OverlayState =
  | { kind: "show" }
  | { kind: "thanks" }
  | { kind: "invalid"; message: string }
  | { kind: "limited" };

export interface RenderedOverlay {
  status: number;
  html: string;
  headers: Record<string, string>;
}

const FIELD_INPUTS: Record<string, string> = {
  name: '<label>Name<input name="name" maxlength="100" autocomplete="name"></label>',
  email:
    '<label>E-mail<input name="email" type="email" maxlength="254" autocomplete="email" required></label>',
  phone: '<label>Phone<input name="phone" type="tel" maxlength="40" autocomplete="tel"></label>',
  message: '<label>Message<textarea name="message" maxlength="2000" rows="3"></textarea></label>',
};

function callToAction(o: OverlayRecord, state: OverlayState): string {
  const parts: string[] = [];
  if (o.text !== "") parts.push(`<p class="t">${escapeHtml(o.text)}</p>`);
  if (o.type === "contact") {
    if (state.kind === "thanks") {
      parts.push('<p class="note" role="status">Thank you, your message was sent.</p>');
    } else if (state.kind === "limited") {
      parts.push(
        '<p class="note err" role="alert">Too many messages from you for this link. Try again later.</p>',
      );
    } else {
      if (state.kind === "invalid") {
        parts.push(`<p class="note err" role="alert">${escapeHtml(state.message)}</p>`);
      }
      const inputs = o.fields.map((f) => FIELD_INPUTS[f] ?? "").join("");
      // No action attribute: the form posts back to this short link, whatever host served it.
      parts.push(
        `<form method="post">${inputs}<button type="submit">${escapeHtml(o.button_label ?? "Send")}</button></form>`,
      );
    }
  } else {
    const target = safeUrl(o.button_url);
    if (target && o.button_label !== null) {
      parts.push(
        `<a class="cta" href="${escapeHtml(target.href)}" target="_top" rel="noopener">${escapeHtml(o.button_label)}</a>`,
      );
    }
  }
  return parts.join("");
}

/**
 * The overlay page for `destination`. `framed`: the destination said it may be framed; otherwise (or
 * when unknown) the interstitial. The status is 200, 400 (invalid submission) or 429 (limited).
 */
export function renderOverlayPage(
  o: OverlayRecord,
  destination: string,
  framed: boolean,
  state: OverlayState = { kind: "show" },
): RenderedOverlay {
  const dest = safeUrl(destination);
  const nonce = randomBytes(16).toString("base64");
  const bg = colour(o.bg_color, "#FFFFFF");
  const fg = colour(o.text_color, "#111111");
  const btn = colour(o.button_color, "#2563EB");
  const position = o.position === "top" || o.position === "center" ? o.position : "bottom";
  const showFrame = framed && dest !== null;
  const place = !showFrame
    ? "top:50%;left:50%;transform:translate(-50%,-50%);max-width:32rem;width:calc(100% - 2rem)"
    : position === "center"
      ? "top:50%;left:50%;transform:translate(-50%,-50%);max-width:32rem;width:calc(100% - 2rem)"
      : `${position}:0;left:0;right:0`;
  const style =
    `html,body{margin:0;height:100%;font:16px/1.5 system-ui,sans-serif}` +
    `body{background:${showFrame ? "#fff" : "#f4f4f5"}}` +
    `iframe{border:0;width:100%;height:100%;display:block}` +
    `.ov{position:fixed;${place};box-sizing:border-box;padding:1rem 1.25rem;background:${bg};color:${fg};` +
    `box-shadow:0 2px 16px rgba(0,0,0,.2);border-radius:${showFrame && position !== "center" ? "0" : ".5rem"};z-index:1}` +
    `.t{margin:0 0 .75rem;white-space:pre-wrap}.note{margin:0 0 .75rem}.err{font-weight:600}` +
    `form{display:grid;gap:.5rem;margin:0 0 .75rem}label{display:grid;font-size:.9rem}` +
    `input,textarea{font:inherit;padding:.35rem .5rem;border:1px solid #a1a1aa;border-radius:.3rem}` +
    `button,.cta{font:inherit;display:inline-block;padding:.45rem 1rem;border:0;border-radius:.3rem;` +
    `background:${btn};color:#fff;text-decoration:none;cursor:pointer;justify-self:start}` +
    `.go{display:inline-block;margin-left:.75rem;color:${fg}}`;
  const cont = dest
    ? `<a class="go" href="${escapeHtml(dest.href)}" target="_top" rel="noopener">Continue to ${escapeHtml(dest.host)} &rarr;</a>`
    : "";
  const frame = showFrame
    ? `<iframe src="${escapeHtml(dest!.href)}" title="${escapeHtml(dest!.host)}" referrerpolicy="strict-origin-when-cross-origin"></iframe>`
    : "";
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">` +
    `<title>${escapeHtml(dest?.host ?? "Continue")}</title><style nonce="${nonce}">${style}</style></head>` +
    `<body>${frame}<aside class="ov" data-overlay="${o.id}" data-mode="${showFrame ? "framed" : "interstitial"}">` +
    `${callToAction(o, state)}${cont}</aside></body></html>`;
  // The page frames its destination (frame-src) and is itself never framed (htmlPageHeaders).
  const csp =
    `default-src 'none'; style-src 'nonce-${nonce}'; form-action 'self'; ` +
    `frame-src ${showFrame ? dest!.origin : "'none'"}`;
  const status = state.kind === "invalid" ? 400 : state.kind === "limited" ? 429 : 200;
  return {
    status,
    html,
    headers: {
      ...htmlPageHeaders(csp),
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
    },
  };
}
