// The create form's UTM builder: the five utm_* parameters written into the destination URL as they
// are typed, and the workspace's saved templates (GET/POST/DELETE /api/v1/utm-templates) to fill them.
import { SMART_LINK_ROUTES, UTM_PARAMS, type UtmParams, type UtmTemplate } from "@kurz/contracts";
import { useState } from "preact/hooks";
import { invalidate, useQuery } from "../../api/cache.ts";
import { call, messageOf } from "../../api/client.ts";
import { errorAt } from "./draft.ts";
import "./smart.css";
import { paramsOf, type UtmName, withUtm } from "./utm.ts";

const LABELS: Record<UtmName, string> = {
  utm_source: "Source",
  utm_medium: "Medium",
  utm_campaign: "Campaign",
  utm_term: "Term",
  utm_content: "Content",
};
const PLACEHOLDERS: Record<UtmName, string> = {
  utm_source: "newsletter",
  utm_medium: "email",
  utm_campaign: "spring-sale",
  utm_term: "running shoes",
  utm_content: "header-button",
};

export function UtmBuilder({ url, onUrl }: { url: string; onUrl: (url: string) => void }) {
  const values = paramsOf(url);
  const isUrl = parsesAsUrl(url);
  const templates = useQuery("utm-templates", () =>
    call(SMART_LINK_ROUTES.listUtmTemplates).then((r) => r.data),
  );
  const [chosen, setChosen] = useState("");
  const [name, setName] = useState("");
  const [state, setState] = useState<{ ok?: string; error?: string; failure?: unknown }>({});

  const set = (p: UtmName, v: string) => onUrl(withUtm(url, { ...values, [p]: v }));
  const apply = (t: UtmTemplate) => onUrl(withUtm(url, t.params));
  const current = (): UtmParams => {
    const out: Partial<Record<UtmName, string>> = {};
    for (const p of UTM_PARAMS) if (values[p]?.trim()) out[p] = values[p]!.trim();
    return out as UtmParams;
  };
  const save = async () => {
    setState({});
    try {
      const { data } = await call(SMART_LINK_ROUTES.createUtmTemplate, {
        body: { name: name.trim(), params: current() },
      });
      invalidate("utm-templates");
      setChosen(String(data.id));
      setName("");
      setState({ ok: `Saved as “${data.name}”.` });
    } catch (err) {
      setState({ error: errorAt(err, ["name"]) ?? errorAt(err, ["params"]) ?? messageOf(err), failure: err });
    }
  };
  const remove = async () => {
    const t = templates.data?.find((x) => String(x.id) === chosen);
    if (!t) return;
    setState({});
    try {
      await call(SMART_LINK_ROUTES.deleteUtmTemplate, { params: { id: t.id } });
      invalidate("utm-templates");
      setChosen("");
      setState({ ok: `Deleted “${t.name}”.` });
    } catch (err) {
      setState({ error: messageOf(err) });
    }
  };

  const list = templates.data ?? [];
  return (
    <div class="utm-builder">
      {!isUrl && <p class="hint">Enter the destination URL first: the parameters are added to it.</p>}
      <TemplatePicker
        list={list}
        chosen={chosen}
        onChoose={(id) => {
          setChosen(id);
          const t = list.find((x) => String(x.id) === id);
          if (t) apply(t);
        }}
        onDelete={remove}
      />
      <div class="smart-grid">
        {UTM_PARAMS.map((p) => (
          <div class="field" key={p}>
            <label for={`utm-${p}`}>
              {LABELS[p]} <code class="utm-name">{p}</code>
            </label>
            <input
              id={`utm-${p}`}
              placeholder={PLACEHOLDERS[p]}
              disabled={!isUrl}
              value={values[p] ?? ""}
              onInput={(e) => set(p, e.currentTarget.value)}
            />
          </div>
        ))}
      </div>
      <div class="utm-save">
        <div class="field">
          <label for="utm-save-name">Save these as a template</label>
          <input
            id="utm-save-name"
            placeholder="Newsletter"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            aria-invalid={errorAt(state.failure, ["name"]) ? true : undefined}
          />
        </div>
        <button
          type="button"
          class="btn small"
          disabled={!name.trim() || Object.keys(current()).length === 0}
          onClick={save}
        >
          Save template
        </button>
      </div>
      <div role="status" aria-live="polite">
        {state.ok && <p class="ok">{state.ok}</p>}
      </div>
      {state.error && (
        <p class="error" role="alert">
          {state.error}
        </p>
      )}
    </div>
  );
}

function parsesAsUrl(url: string): boolean {
  try {
    new URL(url);
    return true;
  } catch {
    return false;
  }
}

/** The saved templates: choosing one applies it, and the chosen one can be deleted. */
function TemplatePicker({
  list,
  chosen,
  onChoose,
  onDelete,
}: {
  list: UtmTemplate[];
  chosen: string;
  onChoose: (id: string) => void;
  onDelete: () => void;
}) {
  return (
    <div class="utm-templates">
      <div class="field">
        <label for="utm-template">Template</label>
        <select
          id="utm-template"
          value={chosen}
          disabled={list.length === 0}
          onChange={(e) => onChoose(e.currentTarget.value)}
        >
          <option value="">{list.length === 0 ? "No saved templates" : "Choose a template"}</option>
          {list.map((t) => (
            <option key={t.id} value={String(t.id)}>
              {t.name}
            </option>
          ))}
        </select>
      </div>
      {chosen && (
        <button type="button" class="btn small danger-ghost" onClick={onDelete}>
          Delete template
        </button>
      )}
    </div>
  );
}
