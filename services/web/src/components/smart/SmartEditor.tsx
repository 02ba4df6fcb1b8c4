// The link form's "Smart destinations": targeting rules in order, a "try as" preview computed in the
// page by the redirect's own decision code (@kurz/link-rules, pure), a weighted split, query
// forwarding, a click limit with its fallback, app links and the Open Graph preview. Loaded when the
// section is first opened (its own chunk), so the initial JavaScript stays within its budget.
import {
  DEVICES,
  type Device,
  OG_DESCRIPTION_MAX,
  OG_IMAGE_MAX_BYTES,
  OG_IMAGE_TYPES,
  OG_TITLE_MAX,
  RULE_BROWSERS,
  RULE_OSES,
  RULE_QUERY_MAX,
  RULES_MAX,
  type RuleBrowser,
  type RuleOs,
  SMART_LINK_ROUTES,
  SPLIT_ARMS_MAX,
  SPLIT_WEIGHT_MAX,
} from "@kurz/contracts";
import { compileSmartLink, decide } from "@kurz/link-rules";
import type { ComponentChildren } from "preact";
import { useMemo, useState } from "preact/hooks";
import { messageOf } from "../../api/client.ts";
import { useSession } from "../../api/session.ts";
import { upload } from "../../api/upload.ts";
import {
  type ArmDraft,
  emptyArm,
  emptyRule,
  errorAt,
  imageSrc,
  localStep,
  ownErrorAt,
  type RuleDraft,
  ruleOf,
  type SmartDraft,
} from "./draft.ts";
import "./smart.css";

const DEVICE_LABELS: Record<Device, string> = { mobile: "Phone", tablet: "Tablet", desktop: "Desktop" };
const OS_LABELS: Record<RuleOs, string> = {
  ios: "iOS",
  android: "Android",
  windows: "Windows",
  macos: "macOS",
  linux: "Linux",
  chromeos: "ChromeOS",
};
const BROWSER_LABELS: Record<RuleBrowser, string> = {
  chrome: "Chrome",
  safari: "Safari",
  firefox: "Firefox",
  edge: "Edge",
  opera: "Opera",
  samsung: "Samsung Internet",
};

export interface SmartEditorProps {
  value: SmartDraft;
  onChange: (v: SmartDraft) => void;
  /** The failed save, whose VALIDATION_ERROR details are shown at their fields. */
  error: unknown;
  /** The link's own URL (the default destination) and title, for the preview and "try as". */
  url: string;
  title: string;
  /** The account's default for forwarding the visit's query. */
  accountForward: boolean;
}

/** A labelled input with its error (or hint) below it, ids `ID` and `ID-note`. */
function Field({
  id,
  label,
  message,
  hint,
  children,
}: {
  id: string;
  label: string;
  message?: string | undefined;
  hint?: string;
  children: ComponentChildren;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {message ? (
        <p class="field-error" id={`${id}-note`}>
          {message}
        </p>
      ) : (
        hint && (
          <p class="hint" id={`${id}-note`}>
            {hint}
          </p>
        )
      )}
    </div>
  );
}

/** Props of a text input inside Field: value, change, error state and its note. */
const text = (id: string, value: string, set: (v: string) => void, message?: string) => ({
  id,
  value,
  onInput: (e: Event) => set((e.currentTarget as HTMLInputElement).value),
  "aria-invalid": message ? true : undefined,
  "aria-describedby": `${id}-note`,
});

function Checks<T extends string>({
  legend,
  name,
  options,
  labels,
  value,
  onChange,
}: {
  legend: string;
  name: string;
  options: readonly T[];
  labels: Record<T, string>;
  value: T[];
  onChange: (v: T[]) => void;
}) {
  return (
    <fieldset class="smart-checks">
      <legend>{legend}</legend>
      {options.map((o) => (
        <label class="check" key={o}>
          <input
            type="checkbox"
            name={name}
            value={o}
            checked={value.includes(o)}
            onChange={(e) =>
              onChange(
                e.currentTarget.checked
                  ? options.filter((x) => x === o || value.includes(x))
                  : value.filter((x) => x !== o),
              )
            }
          />
          {labels[o]}
        </label>
      ))}
    </fieldset>
  );
}

function RuleCard({
  rule,
  index,
  count,
  error,
  onChange,
  onMove,
  onRemove,
}: {
  rule: RuleDraft;
  index: number;
  count: number;
  error: unknown;
  onChange: (r: RuleDraft) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}) {
  const id = `sr-${rule.key}`;
  const at = (...p: (string | number)[]) => errorAt(error, ["rules", index, ...p]);
  const set =
    <K extends keyof RuleDraft>(k: K) =>
    (v: RuleDraft[K]) =>
      onChange({ ...rule, [k]: v });
  const whenError = ownErrorAt(error, ["rules", index, "when"]) ?? ownErrorAt(error, ["rules", index]);
  const n = index + 1;
  return (
    <li class="smart-rule" aria-labelledby={`${id}-title`}>
      <RuleHead
        titleId={`${id}-title`}
        n={n}
        first={index === 0}
        last={index === count - 1}
        onMove={onMove}
        onRemove={onRemove}
      />
      {whenError && (
        <p class="field-error" role="alert">
          {whenError}
        </p>
      )}
      <div class="smart-check-groups">
        <Checks
          legend="Device"
          name={`${id}-device`}
          options={DEVICES}
          labels={DEVICE_LABELS}
          value={rule.device}
          onChange={set("device")}
        />
        <Checks
          legend="Operating system"
          name={`${id}-os`}
          options={RULE_OSES}
          labels={OS_LABELS}
          value={rule.os}
          onChange={set("os")}
        />
        <Checks
          legend="Browser"
          name={`${id}-browser`}
          options={RULE_BROWSERS}
          labels={BROWSER_LABELS}
          value={rule.browser}
          onChange={set("browser")}
        />
      </div>
      <div class="smart-grid">
        <Field
          id={`${id}-country`}
          label="Countries"
          message={at("when", "country")}
          hint="Comma-separated codes: DE, AT, CH"
        >
          <input {...text(`${id}-country`, rule.country, set("country"), at("when", "country"))} />
        </Field>
        <Field
          id={`${id}-language`}
          label="Languages"
          message={at("when", "language")}
          hint="Comma-separated: de, pt-BR"
        >
          <input {...text(`${id}-language`, rule.language, set("language"), at("when", "language"))} />
        </Field>
        <Field id={`${id}-after`} label="From (local time)" message={at("when", "after")}>
          <input
            type="datetime-local"
            step={localStep(rule.after)}
            {...text(`${id}-after`, rule.after, set("after"), at("when", "after"))}
          />
        </Field>
        <Field id={`${id}-before`} label="Until (local time)" message={at("when", "before")}>
          <input
            type="datetime-local"
            step={localStep(rule.before)}
            {...text(`${id}-before`, rule.before, set("before"), at("when", "before"))}
          />
        </Field>
      </div>
      <QueryPairs
        pairs={rule.query}
        n={n}
        error={at("when", "query")}
        onChange={(query) => onChange({ ...rule, query })}
      />
      <Field id={`${id}-url`} label={`Rule ${n} destination URL`} message={at("url")}>
        <input
          type="url"
          placeholder="https://example.com/for-these-visitors"
          {...text(`${id}-url`, rule.url, set("url"), at("url"))}
        />
      </Field>
    </li>
  );
}

/** A rule's title with its move and remove buttons. */
function RuleHead({
  titleId,
  n,
  first,
  last,
  onMove,
  onRemove,
}: {
  titleId: string;
  n: number;
  first: boolean;
  last: boolean;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}) {
  return (
    <div class="smart-rule-head">
      <h4 id={titleId}>Rule {n}</h4>
      <div class="smart-rule-actions">
        <button
          type="button"
          class="btn small"
          disabled={first}
          onClick={() => onMove(-1)}
          aria-label={`Move rule ${n} up`}
        >
          ↑
        </button>
        <button
          type="button"
          class="btn small"
          disabled={last}
          onClick={() => onMove(1)}
          aria-label={`Move rule ${n} down`}
        >
          ↓
        </button>
        <button type="button" class="btn small danger-ghost" onClick={onRemove}>
          Remove rule {n}
        </button>
      </div>
    </div>
  );
}

/** Rule `n`'s query parameters, each a name that must equal its value. */
function QueryPairs({
  pairs,
  n,
  error,
  onChange,
}: {
  pairs: RuleDraft["query"];
  n: number;
  error: string | undefined;
  onChange: (pairs: RuleDraft["query"]) => void;
}) {
  return (
    <fieldset class="smart-query">
      <legend>Query parameters (each must equal its value)</legend>
      {pairs.map((p, i) => (
        <div class="smart-pair" key={i}>
          <label>
            Name
            <input
              value={p.name}
              onInput={(e) => {
                const q = [...pairs];
                q[i] = { ...p, name: e.currentTarget.value };
                onChange(q);
              }}
            />
          </label>
          <label>
            Value
            <input
              value={p.value}
              onInput={(e) => {
                const q = [...pairs];
                q[i] = { ...p, value: e.currentTarget.value };
                onChange(q);
              }}
            />
          </label>
          <button
            type="button"
            class="btn small ghost"
            aria-label={`Remove parameter ${i + 1} of rule ${n}`}
            onClick={() => onChange(pairs.filter((_, j) => j !== i))}
          >
            ✕
          </button>
        </div>
      ))}
      {error && <p class="field-error">{error}</p>}
      <button
        type="button"
        class="btn small"
        disabled={pairs.length >= RULE_QUERY_MAX}
        onClick={() => onChange([...pairs, { name: "", value: "" }])}
      >
        Add parameter
      </button>
    </fieldset>
  );
}

function RulesEditor({ value, onChange, error }: Pick<SmartEditorProps, "value" | "onChange" | "error">) {
  const rules = value.rules;
  const setRules = (r: RuleDraft[]) => onChange({ ...value, rules: r });
  const listError = ownErrorAt(error, ["rules"]);
  return (
    <section class="smart-part" aria-labelledby="smart-rules-title">
      <h3 id="smart-rules-title">Rules</h3>
      <p class="hint">
        Checked in order: the first rule whose every condition holds sends the visitor to its URL. Within a
        condition, any checked or listed value matches.
      </p>
      {listError && <p class="field-error">{listError}</p>}
      {rules.length > 0 && (
        <ol class="smart-rules">
          {rules.map((r, i) => (
            <RuleCard
              key={r.key}
              rule={r}
              index={i}
              count={rules.length}
              error={error}
              onChange={(next) => setRules(rules.map((x) => (x.key === r.key ? next : x)))}
              onRemove={() => setRules(rules.filter((x) => x.key !== r.key))}
              onMove={(by) => {
                const next = [...rules];
                [next[i], next[i + by]] = [next[i + by]!, next[i]!];
                setRules(next);
              }}
            />
          ))}
        </ol>
      )}
      <button
        type="button"
        class="btn"
        disabled={rules.length >= RULES_MAX}
        onClick={() => setRules([...rules, emptyRule()])}
      >
        Add rule
      </button>
    </section>
  );
}

function SplitEditor({ value, onChange, error }: Pick<SmartEditorProps, "value" | "onChange" | "error">) {
  const arms = value.split;
  const setArms = (a: ArmDraft[]) => onChange({ ...value, split: a });
  const total = arms.reduce((s, a) => s + Math.max(Number(a.weight) || 0, 0), 0);
  const share = (a: ArmDraft) =>
    total > 0 && Number(a.weight) > 0 ? `${Math.round((Number(a.weight) / total) * 1000) / 10}%` : "—";
  return (
    <section class="smart-part" aria-labelledby="smart-split-title">
      <h3 id="smart-split-title">Split</h3>
      <p class="hint">
        Visitors no rule matched are shared among these URLs by weight; each visitor keeps the URL they got.
      </p>
      {ownErrorAt(error, ["split"]) && <p class="field-error">{ownErrorAt(error, ["split"])}</p>}
      {arms.length > 0 && (
        <ol class="smart-arms">
          {arms.map((a, i) => {
            const id = `sa-${a.key}`;
            const set = (patch: Partial<ArmDraft>) =>
              setArms(arms.map((x) => (x.key === a.key ? { ...x, ...patch } : x)));
            return (
              <li class="smart-arm" key={a.key}>
                <Field
                  id={`${id}-url`}
                  label={`Split URL ${i + 1}`}
                  message={errorAt(error, ["split", i, "url"])}
                >
                  <input
                    type="url"
                    placeholder="https://example.com/variant"
                    {...text(`${id}-url`, a.url, (url) => set({ url }), errorAt(error, ["split", i, "url"]))}
                  />
                </Field>
                <Field id={`${id}-weight`} label="Weight" message={errorAt(error, ["split", i, "weight"])}>
                  <input
                    type="number"
                    min={1}
                    max={SPLIT_WEIGHT_MAX}
                    inputMode="numeric"
                    {...text(
                      `${id}-weight`,
                      a.weight,
                      (weight) => set({ weight }),
                      errorAt(error, ["split", i, "weight"]),
                    )}
                  />
                </Field>
                <output class="smart-share" aria-label={`Share of split URL ${i + 1}`}>
                  {share(a)}
                </output>
                <button
                  type="button"
                  class="btn small ghost"
                  aria-label={`Remove split URL ${i + 1}`}
                  onClick={() => setArms(arms.filter((x) => x.key !== a.key))}
                >
                  ✕
                </button>
              </li>
            );
          })}
        </ol>
      )}
      <button
        type="button"
        class="btn"
        disabled={arms.length >= SPLIT_ARMS_MAX}
        onClick={() => setArms(arms.length === 0 ? [emptyArm(), emptyArm()] : [...arms, emptyArm()])}
      >
        {arms.length === 0 ? "Split traffic" : "Add split URL"}
      </button>
    </section>
  );
}

/** Which part of the link sent the visit, in words. */
function describeDestination(destination: string, s: SmartDraft): string {
  if (destination === "default") return "the link's own URL (no rule matched)";
  if (destination === "ios") return "the iOS app link";
  if (destination === "android") return "the Android app link";
  const [kind, n] = destination.split(":");
  if (kind === "rule") return `rule ${n}`;
  if (kind === "split") return `split URL ${n} of ${s.split.length} (each visitor keeps theirs)`;
  return destination;
}

/** A visitor as "Try as" describes them: a `when` of "" (or unreadable) is now. */
interface TriedVisitor {
  device: Device;
  os: RuleOs | "";
  browser: RuleBrowser | "";
  country: string;
  language: string;
  query: string;
  when: string;
  key: number;
}

/** Where the link as drafted sends `v`, decided as the redirect does; rules are numbered as shown. */
function tryVisitor(value: SmartDraft, url: string, accountForward: boolean, v: TriedVisitor) {
  const { device, os, browser, country, language, query, when, key } = v;
  // Rules still being typed (no URL yet) are left out rather than sending every visitor nowhere.
  const rules = value.rules.filter((r) => r.url.trim() !== "");
  const s = compileSmartLink(
    {
      rules: rules.map(ruleOf),
      split: value.split
        .filter((a) => a.url.trim() !== "" && Number(a.weight) > 0)
        .map((a) => ({ url: a.url.trim(), weight: Math.floor(Number(a.weight)) })),
      forward_query: value.forwardQuery ?? accountForward,
      ios_url: value.iosUrl.trim() || null,
      android_url: value.androidUrl.trim() || null,
    },
    { imageUrl: imageSrc },
  );
  const decision = decide(url.trim() || "(the destination URL)", s, {
    device,
    os: os || null,
    browser: browser || null,
    country: country.trim().toUpperCase() || null,
    language: language.trim().toLowerCase() || null,
    query: query.trim().replace(/^\?/, ""),
    now: when === "" || Number.isNaN(new Date(when).getTime()) ? Date.now() : new Date(when).getTime(),
    key,
  });
  // The rule number counts the rules shown, including any left out above.
  if (decision.destination.startsWith("rule:")) {
    const kept = rules[Number(decision.destination.slice(5)) - 1]!;
    decision.destination = `rule:${value.rules.indexOf(kept) + 1}`;
  }
  return decision;
}

/** "Try as": a visitor described by hand, and where the link sends them, decided as the redirect does. */
function TryAs({ value, url, accountForward }: Pick<SmartEditorProps, "value" | "url" | "accountForward">) {
  const [device, setDevice] = useState<Device>("mobile");
  const [os, setOs] = useState<RuleOs | "">("");
  const [browser, setBrowser] = useState<RuleBrowser | "">("");
  const [country, setCountry] = useState("");
  const [language, setLanguage] = useState("");
  const [query, setQuery] = useState("");
  // A datetime-local value, read as the browser's local time like the rules' from and until; empty: now.
  const [when, setWhen] = useState("");
  const [key, setKey] = useState(() => Math.floor(Math.random() * 2 ** 31));
  const result = useMemo(
    () =>
      tryVisitor(value, url, accountForward, { device, os, browser, country, language, query, when, key }),
    [value, url, accountForward, device, os, browser, country, language, query, when, key],
  );
  return (
    <section class="smart-part smart-try" aria-labelledby="smart-try-title">
      <h3 id="smart-try-title">Try as</h3>
      <div class="smart-grid">
        <div class="field">
          <label for="try-device">Device</label>
          <select id="try-device" value={device} onChange={(e) => setDevice(e.currentTarget.value as Device)}>
            {DEVICES.map((d) => (
              <option key={d} value={d}>
                {DEVICE_LABELS[d]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="try-os">Operating system</label>
          <select id="try-os" value={os} onChange={(e) => setOs(e.currentTarget.value as RuleOs | "")}>
            <option value="">Other</option>
            {RULE_OSES.map((o) => (
              <option key={o} value={o}>
                {OS_LABELS[o]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="try-browser">Browser</label>
          <select
            id="try-browser"
            value={browser}
            onChange={(e) => setBrowser(e.currentTarget.value as RuleBrowser | "")}
          >
            <option value="">Other</option>
            {RULE_BROWSERS.map((b) => (
              <option key={b} value={b}>
                {BROWSER_LABELS[b]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="try-country">Country</label>
          <input
            id="try-country"
            placeholder="DE"
            value={country}
            onInput={(e) => setCountry(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="try-language">Language</label>
          <input
            id="try-language"
            placeholder="de"
            value={language}
            onInput={(e) => setLanguage(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="try-query">Query</label>
          <input
            id="try-query"
            placeholder="ref=newsletter"
            value={query}
            onInput={(e) => setQuery(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="try-when">When (local time)</label>
          <input
            id="try-when"
            type="datetime-local"
            value={when}
            aria-describedby="try-when-hint"
            onInput={(e) => setWhen(e.currentTarget.value)}
          />
          <p class="hint" id="try-when-hint">
            Empty: now.
          </p>
        </div>
      </div>
      <div class="smart-try-result" role="status" aria-live="polite" data-testid="try-result">
        <p>
          Goes to <strong class="smart-try-url">{result.url}</strong>
        </p>
        <p class="hint">From {describeDestination(result.destination, value)}.</p>
      </div>
      {value.split.length > 0 && (
        <button type="button" class="btn small" onClick={() => setKey(Math.floor(Math.random() * 2 ** 31))}>
          Another visitor
        </button>
      )}
    </section>
  );
}

function LimitsAndApps({
  value,
  onChange,
  error,
  accountForward,
}: Pick<SmartEditorProps, "value" | "onChange" | "error" | "accountForward">) {
  const set =
    <K extends keyof SmartDraft>(k: K) =>
    (v: SmartDraft[K]) =>
      onChange({ ...value, [k]: v });
  const forward = value.forwardQuery ?? accountForward;
  return (
    <section class="smart-part" aria-labelledby="smart-more-title">
      <h3 id="smart-more-title">Forwarding, limits and apps</h3>
      <label class="switch-row">
        <input
          type="checkbox"
          role="switch"
          aria-checked={forward}
          checked={forward}
          aria-describedby="sf-forward-note"
          onChange={(e) => set("forwardQuery")(e.currentTarget.checked)}
        />
        Forward query parameters
      </label>
      <p class="hint switch-hint" id="sf-forward-note">
        A visit to <code>/code?ref=x</code> goes on to the destination with <code>ref=x</code> added. The
        account's default is {accountForward ? "on" : "off"}.
      </p>
      <div class="smart-grid wide-cells">
        <Field
          id="sf-max-clicks"
          label="Click limit"
          message={errorAt(error, ["max_clicks"])}
          hint="After this many clicks the link counts as expired."
        >
          <input
            type="number"
            min={1}
            inputMode="numeric"
            {...text("sf-max-clicks", value.maxClicks, set("maxClicks"), errorAt(error, ["max_clicks"]))}
          />
        </Field>
        <Field
          id="sf-expired-url"
          label="When expired, send to"
          message={errorAt(error, ["expired_url"])}
          hint="Empty: an expired link answers 410 Gone."
        >
          <input
            type="url"
            placeholder="https://example.com/offer-ended"
            {...text("sf-expired-url", value.expiredUrl, set("expiredUrl"), errorAt(error, ["expired_url"]))}
          />
        </Field>
        <Field
          id="sf-ios"
          label="iOS app URL"
          message={errorAt(error, ["ios_url"])}
          hint="Checked before the rules for iPhone and iPad visitors."
        >
          <input
            placeholder="https://apps.apple.com/app/id123"
            {...text("sf-ios", value.iosUrl, set("iosUrl"), errorAt(error, ["ios_url"]))}
          />
        </Field>
        <Field
          id="sf-android"
          label="Android app URL"
          message={errorAt(error, ["android_url"])}
          hint="Checked before the rules for Android visitors."
        >
          <input
            placeholder="myapp://item/42"
            {...text("sf-android", value.androidUrl, set("androidUrl"), errorAt(error, ["android_url"]))}
          />
        </Field>
      </div>
    </section>
  );
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return location.host;
  }
};

/** Open Graph: what chat apps and social networks show when the short link is pasted. */
function OpenGraph({ value, onChange, error, url, title }: SmartEditorProps) {
  const session = useSession();
  const [busy, setBusy] = useState(false);
  const [uploadError, setUploadError] = useState("");
  const set =
    <K extends keyof SmartDraft>(k: K) =>
    (v: SmartDraft[K]) =>
      onChange({ ...value, [k]: v });
  const choose = async (file: File | undefined) => {
    setUploadError("");
    if (!file || !session) return;
    if (!(OG_IMAGE_TYPES as readonly string[]).includes(file.type)) {
      setUploadError("Choose a PNG, JPEG or WebP image.");
      return;
    }
    if (file.size > OG_IMAGE_MAX_BYTES) {
      setUploadError(`The image is larger than ${OG_IMAGE_MAX_BYTES / 1024 / 1024} MB.`);
      return;
    }
    setBusy(true);
    try {
      const { data } = await upload(SMART_LINK_ROUTES.uploadImage, file, { csrfToken: session.csrf_token });
      onChange({ ...value, ogImage: { id: data.id, src: imageSrc(data.id) } });
    } catch (err) {
      setUploadError(messageOf(err));
    }
    setBusy(false);
  };
  const shownTitle = value.ogTitle.trim() || title.trim() || hostOf(url);
  const imageError = uploadError || errorAt(error, ["og", "image"]);
  return (
    <section class="smart-part" aria-labelledby="smart-og-title">
      <h3 id="smart-og-title">Link preview (Open Graph)</h3>
      <p class="hint">What chat apps and social networks show when the short link is shared.</p>
      <div class="smart-og">
        <div>
          <Field id="og-title" label="Preview title" message={errorAt(error, ["og", "title"])}>
            <input
              maxLength={OG_TITLE_MAX}
              {...text("og-title", value.ogTitle, set("ogTitle"), errorAt(error, ["og", "title"]))}
            />
          </Field>
          <Field
            id="og-description"
            label="Preview description"
            message={errorAt(error, ["og", "description"])}
          >
            <textarea
              rows={3}
              maxLength={OG_DESCRIPTION_MAX}
              {...text(
                "og-description",
                value.ogDescription,
                set("ogDescription"),
                errorAt(error, ["og", "description"]),
              )}
            />
          </Field>
          <Field
            id="og-image"
            label="Preview image"
            message={imageError}
            hint="PNG, JPEG or WebP, at most 1 MB; 1200 × 630 px shows best."
          >
            <input
              id="og-image"
              type="file"
              accept={OG_IMAGE_TYPES.join(",")}
              disabled={busy}
              aria-describedby="og-image-note"
              aria-invalid={imageError ? true : undefined}
              onChange={(e) => void choose(e.currentTarget.files?.[0])}
            />
          </Field>
          {busy && <p class="hint">Uploading…</p>}
          {value.ogImage && (
            <button type="button" class="btn small" onClick={() => set("ogImage")(null)}>
              Remove image
            </button>
          )}
        </div>
        <figure class="og-card" aria-label="Preview card">
          {value.ogImage ? (
            <img src={value.ogImage.src} alt="" class="og-card-image" data-testid="og-card-image" />
          ) : (
            <div class="og-card-image og-card-empty" aria-hidden="true" />
          )}
          <figcaption>
            <span class="og-card-host">{location.host}</span>
            <strong class="og-card-title">{shownTitle}</strong>
            {value.ogDescription.trim() && <span class="og-card-desc">{value.ogDescription.trim()}</span>}
          </figcaption>
        </figure>
      </div>
    </section>
  );
}

export function SmartEditor(props: SmartEditorProps) {
  return (
    <div class="smart-editor">
      <RulesEditor {...props} />
      <TryAs {...props} />
      <SplitEditor {...props} />
      <LimitsAndApps {...props} />
      <OpenGraph {...props} />
    </div>
  );
}
