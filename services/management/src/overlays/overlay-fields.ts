// An overlay and a contact submission under the snake_case names every answer uses (v1, the older API)
// and the redirect's record: the members they share, each answer adding its own around them.
import type { Overlay, OverlaySubmission } from "@kurz/db";

/** What an overlay shows a visitor. */
export function overlayContent(overlay: Overlay) {
  return {
    text: overlay.text,
    button_label: overlay.buttonLabel,
    button_url: overlay.buttonUrl,
    fields: Array.isArray(overlay.fields) ? (overlay.fields as string[]) : [],
    bg_color: overlay.bgColor,
    text_color: overlay.textColor,
    button_color: overlay.buttonColor,
    position: overlay.position,
  };
}

/** What a visitor sent through a contact overlay, and on which link. */
export function submissionFields(s: OverlaySubmission) {
  return { id: s.id, link_id: s.linkId, name: s.name, email: s.email, phone: s.phone, message: s.message };
}
