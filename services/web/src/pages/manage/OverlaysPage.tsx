// CTA overlays: create and edit message and contact overlays (text, a button's label and
// URL or a form's fields, colours, position), delete them, and read a contact overlay's submissions
// with a CSV export. Data: /api/v1/overlays with the session (the older API's /api/overlay routes are
// the same store; domains, campaigns and channels have only those, so their pages use them).
import {
  OVERLAY_DEFAULTS,
  OVERLAY_FIELDS,
  OVERLAY_LABEL_MAX,
  OVERLAY_NAME_MAX,
  OVERLAY_POSITIONS,
  OVERLAY_TEXT_MAX,
  type Overlay,
  type OverlayField,
  type OverlayPosition,
  ROUTES,
} from "@kurz/contracts";
import { useState } from "preact/hooks";
import { useQuery } from "../../api/cache.ts";
import { call, pathOf } from "../../api/client.ts";
import { DialogDone } from "../../components/Dialog.tsx";
import { SelectField } from "../../components/FormField.tsx";
import { TableCard } from "../../components/TableCard.tsx";
import { fmtDate } from "../common.tsx";
import { ManagePage } from "./ManagePage.tsx";
import "./manage.css";
import { ColorField, ManageForm, TextField } from "./forms.tsx";
import { PanelTable, useFreshList, V1_LIST_QUERY } from "./lists.tsx";

const KEY = "overlays";
const TYPES = ["message", "contact"] as const;
const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);

/** How the overlay looks: its three colours and where on the page it sits. */
interface OverlayLook {
  bg: string;
  fg: string;
  btn: string;
  position: string;
}

function OverlayForm({ overlay, onDone }: { overlay?: Overlay; onDone: () => void }) {
  const [type, setType] = useState<string>(overlay?.type ?? "message");
  const [name, setName] = useState(overlay?.name ?? "");
  const [text, setText] = useState(overlay?.text ?? "");
  const [label, setLabel] = useState(overlay?.button_label ?? "");
  const [url, setUrl] = useState(overlay?.button_url ?? "");
  const [fields, setFields] = useState<string[]>(overlay?.fields ?? OVERLAY_DEFAULTS.fields);
  const [look, setLook] = useState<OverlayLook>({
    bg: overlay?.bg_color ?? OVERLAY_DEFAULTS.bg_color,
    fg: overlay?.text_color ?? OVERLAY_DEFAULTS.text_color,
    btn: overlay?.button_color ?? OVERLAY_DEFAULTS.button_color,
    position: overlay?.position ?? OVERLAY_DEFAULTS.position,
  });
  const contact = type === "contact";
  const save = async () => {
    const common = {
      name: name.trim(),
      text: text.trim(),
      bg_color: look.bg.toUpperCase(),
      text_color: look.fg.toUpperCase(),
      button_color: look.btn.toUpperCase(),
      position: look.position as OverlayPosition,
      ...(contact ? { fields: OVERLAY_FIELDS.filter((f) => fields.includes(f)) as OverlayField[] } : {}),
    };
    const button = label.trim() || url.trim() ? { button_label: label.trim(), button_url: url.trim() } : null;
    if (overlay)
      await call(ROUTES.updateOverlay, {
        params: { id: String(overlay.id) },
        body: { ...common, ...(button ?? { button_label: null, button_url: null }) },
      });
    else
      await call(ROUTES.createOverlay, {
        body: { type: type as (typeof TYPES)[number], ...common, ...(button ?? {}) },
      });
  };
  return (
    <ManageForm save={save} stale={KEY} label={overlay ? "Save" : "Create overlay"} onDone={onDone}>
      {!overlay && <TypePicker type={type} onType={setType} />}
      <TextField
        id="overlay-name"
        label="Name"
        hint="Only you see it: it names the overlay in lists."
        required
        maxLength={OVERLAY_NAME_MAX}
        value={name}
        onValue={setName}
      />
      <TextField
        id="overlay-text"
        label="Text"
        rows={3}
        maxLength={OVERLAY_TEXT_MAX}
        value={text}
        onValue={setText}
      />
      {contact && <ContactFields fields={fields} onFields={setFields} />}
      <div class="grid-2">
        <TextField
          id="overlay-button-label"
          label={contact ? "Button label (optional)" : "Button label"}
          maxLength={OVERLAY_LABEL_MAX}
          value={label}
          onValue={setLabel}
        />
        <TextField
          id="overlay-button-url"
          label={contact ? "Button URL (optional)" : "Button URL"}
          type="url"
          value={url}
          onValue={setUrl}
        />
      </div>
      <LookFields look={look} onLook={setLook} />
      <OverlayPreview look={look} text={text} label={label} fields={contact ? fields : null} />
    </ManageForm>
  );
}

/** Message or contact form; chosen when the overlay is created, fixed after. */
function TypePicker({ type, onType }: { type: string; onType: (type: string) => void }) {
  return (
    <fieldset class="segmented-field">
      <legend>Type</legend>
      {TYPES.map((t) => (
        <label key={t} class="check">
          <input type="radio" name="overlay-type" checked={type === t} onChange={() => onType(t)} />{" "}
          {t === "message" ? "Message with a button" : "Contact form"}
        </label>
      ))}
    </fieldset>
  );
}

/** The fields a contact overlay asks the visitor for. */
function ContactFields({ fields, onFields }: { fields: string[]; onFields: (fields: string[]) => void }) {
  return (
    <fieldset>
      <legend>Form fields</legend>
      {OVERLAY_FIELDS.map((f) => (
        <label key={f} class="check">
          <input
            type="checkbox"
            checked={fields.includes(f)}
            onChange={(e) =>
              onFields(e.currentTarget.checked ? [...fields, f] : fields.filter((x) => x !== f))
            }
          />{" "}
          {cap(f)}
        </label>
      ))}
    </fieldset>
  );
}

function LookFields({ look, onLook }: { look: OverlayLook; onLook: (look: OverlayLook) => void }) {
  return (
    <div class="colors">
      <ColorField
        id="overlay-bg"
        label="Background"
        value={look.bg}
        onValue={(bg) => onLook({ ...look, bg })}
      />
      <ColorField
        id="overlay-fg"
        label="Text colour"
        value={look.fg}
        onValue={(fg) => onLook({ ...look, fg })}
      />
      <ColorField
        id="overlay-btn"
        label="Button colour"
        value={look.btn}
        onValue={(btn) => onLook({ ...look, btn })}
      />
      <SelectField
        id="overlay-position"
        label="Position"
        value={look.position}
        options={OVERLAY_POSITIONS.map((p) => ({ value: p, label: cap(p) }))}
        onValue={(position) => onLook({ ...look, position })}
      />
    </div>
  );
}

/** The overlay as visitors will see it; `fields` are a contact overlay's, null for a message. */
function OverlayPreview({
  look,
  text,
  label,
  fields,
}: {
  look: OverlayLook;
  text: string;
  label: string;
  fields: string[] | null;
}) {
  return (
    <div class="overlay-preview" aria-hidden="true" style={{ background: look.bg, color: look.fg }}>
      <p>{text || "Your message"}</p>
      {fields && <p class="small">{fields.map(cap).join(" · ")}</p>}
      {(label || fields) && (
        <span class="preview-btn" style={{ background: look.btn }}>
          {label || "Send"}
        </span>
      )}
    </div>
  );
}

function Submissions({ overlay, onDone }: { overlay: Overlay; onDone: () => void }) {
  const params = { id: String(overlay.id) };
  const list = useQuery(`overlay-submissions:${overlay.id}`, () =>
    call(ROUTES.listOverlaySubmissions, { params, query: V1_LIST_QUERY }),
  );
  const rows = list.data?.data ?? [];
  return (
    <>
      <PanelTable
        failures={[list.error]}
        loaded={list.data !== undefined}
        isEmpty={rows.length === 0}
        loading="Loading submissions"
        empty="No submissions yet."
        caption={`Submissions of ${overlay.name}`}
        columns={["Received", "Name", "E-mail", ["Phone", "col-hide"], "Message"]}
      >
        <tbody>
          {rows.map((s) => (
            <tr key={s.id} data-testid="submission-row">
              <td>{fmtDate(s.created_at)}</td>
              <td>{s.name ?? "—"}</td>
              <td>{s.email ?? "—"}</td>
              <td class="col-hide">{s.phone ?? "—"}</td>
              <td>{s.message ?? "—"}</td>
            </tr>
          ))}
        </tbody>
      </PanelTable>
      <DialogDone onDone={onDone}>
        <a class="btn" href={pathOf(ROUTES.exportOverlaySubmissions, params)} download>
          Export CSV
        </a>
      </DialogDone>
    </>
  );
}

export function OverlaysPage() {
  const list = useFreshList(KEY);
  const overlays = list.data ?? [];
  return (
    <ManagePage<Overlay>
      title="CTA overlays"
      intro="A call to action shown over a link's destination (or before it, where the site refuses framing). Choose one for a link in the link's form."
      noun="overlay"
      write="overlays:write"
      wideForm
      form={(overlay, done) => <OverlayForm overlay={overlay} onDone={done} />}
      panel={{
        label: "Submissions",
        joiner: "of",
        title: (o) => `Submissions of ${o.name}`,
        render: (o, done) => <Submissions overlay={o} onDone={done} />,
        readOnly: true,
      }}
      remove={(o) => call(ROUTES.deleteOverlay, { params: { id: String(o.id) } })}
      invalidates={[KEY]}
      deleteText={
        <p>Links that show it go straight to their destination again. Its submissions are deleted too.</p>
      }
    >
      {(actions) => (
        <TableCard
          query={list}
          isEmpty={overlays.length === 0}
          loading="Loading overlays"
          empty="No overlays yet."
          caption="Your CTA overlays"
          columns={["Name", "Type", ["Position", "col-hide"], ["Created", "col-hide"]]}
          actions
          class="manage-table"
        >
          <tbody>
            {overlays.map((o) => (
              <tr key={o.id} data-testid="overlay-row">
                <td>
                  <span class="swatch" style={{ background: o.button_color }} aria-hidden="true" />
                  {o.name}
                </td>
                <td>{cap(o.type)}</td>
                <td class="col-hide">{cap(o.position)}</td>
                <td class="col-hide">{fmtDate(o.created_at)}</td>
                {/* Only a contact overlay has submissions to show. */}
                <td class="actions">{actions(o, o.type === "contact")}</td>
              </tr>
            ))}
          </tbody>
        </TableCard>
      )}
    </ManagePage>
  );
}
