// The QR designer: every option GET /api/v1/qr takes (QrQuery), previewed live and downloaded as the
// file the API renders. A logo the person chooses is drawn in the page over the code's centre (at most
// a fifth of its width, on a white margin), both in the preview and in the download; with a logo the
// code is asked for at error correction H, so the modules it covers can still be read.
import { QrErrorCorrection, QrFormat, type QrQueryInput, V1_ROUTES } from "@kurz/contracts";
import { useEffect, useState } from "preact/hooks";
import { urlOf, workspaceHeaders } from "../api/client.ts";
import { WorkspaceImage } from "./WorkspaceFiles.tsx";

/** The logo's white box is this share of the code's width, the logo inside it this share of the box. */
const LOGO_BOX = 0.2;
const LOGO_FILL = 0.8;

interface Logo {
  name: string;
  image: ImageBitmap;
  /** For the SVG download, which carries the logo inside it. */
  dataUrl: string;
}

async function fetchQr(src: string): Promise<Blob> {
  const res = await fetch(src, { credentials: "same-origin", headers: workspaceHeaders() });
  if (!res.ok) throw new Error(`The QR code could not be made (${res.status}).`);
  return res.blob();
}

/** Where the logo goes on a square of `size`: its white box and the logo inside it, aspect kept. */
function logoPlace(size: number, logo: { width: number; height: number }) {
  const box = size * LOGO_BOX;
  const scale = (box * LOGO_FILL) / Math.max(logo.width, logo.height);
  const w = logo.width * scale;
  const h = logo.height * scale;
  return { box, bx: (size - box) / 2, w, h, x: (size - w) / 2, y: (size - h) / 2 };
}

/** The API's PNG with the logo drawn over its centre, as a PNG. */
async function pngWithLogo(qr: Blob, logo: Logo): Promise<Blob> {
  const code = await createImageBitmap(qr);
  const canvas = document.createElement("canvas");
  canvas.width = code.width;
  canvas.height = code.height;
  const ctx = canvas.getContext("2d");
  if (!ctx) throw new Error("This browser cannot draw the logo.");
  ctx.drawImage(code, 0, 0);
  const p = logoPlace(code.width, logo.image);
  ctx.fillStyle = "#ffffff";
  ctx.beginPath();
  ctx.roundRect(p.bx, p.bx, p.box, p.box, p.box * 0.12);
  ctx.fill();
  ctx.drawImage(logo.image, p.x, p.y, p.w, p.h);
  return new Promise((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("The image could not be made."))), "image/png"),
  );
}

/** The API's SVG with the logo (as a data: URL) and its white box added over its centre. */
async function svgWithLogo(qr: Blob, logo: Logo): Promise<Blob> {
  const svg = await qr.text();
  const vb = /viewBox="([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+)"/.exec(svg);
  const size = vb ? Number(vb[3]) : 100;
  const p = logoPlace(size, logo.image);
  const r = p.box * 0.12;
  const extra =
    `<rect x="${p.bx}" y="${p.bx}" width="${p.box}" height="${p.box}" rx="${r}" fill="#ffffff"/>` +
    `<image x="${p.x}" y="${p.y}" width="${p.w}" height="${p.h}" href="${logo.dataUrl}"/>`;
  return new Blob([svg.replace(/<\/svg>\s*$/, `${extra}</svg>`)], { type: "image/svg+xml" });
}

const readDataUrl = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(new Error("The file could not be read."));
    reader.readAsDataURL(file);
  });

/** The preview with the logo: the API's PNG composed in the page, shown from a blob: URL. */
function LogoPreview({ src, logo, alt }: { src: string; logo: Logo; alt: string }) {
  const [url, setUrl] = useState("");
  useEffect(() => {
    let made = "";
    let live = true;
    void fetchQr(src)
      .then((qr) => pngWithLogo(qr, logo))
      .then((blob) => {
        if (!live) return;
        made = URL.createObjectURL(blob);
        setUrl(made);
      })
      .catch(() => {});
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [src, logo]);
  return <img src={url || undefined} alt={alt} width={220} height={220} data-testid="qr-with-logo" />;
}

export function QrDesigner({ code }: { code: string }) {
  const [format, setFormat] = useState<"png" | "svg">("png");
  const [size, setSize] = useState(400);
  const [color, setColor] = useState("#1a1410");
  const [bg, setBg] = useState("#ffffff");
  const [transparent, setTransparent] = useState(false);
  const [ec, setEc] = useState<EcLevel>("M");
  const [margin, setMargin] = useState(2);
  const [error, setError] = useState("");
  const [logo, setLogo] = useState<Logo | null>(null);
  // A logo covers modules: only the highest level of error correction leaves the code readable.
  const level = logo ? "H" : ec;

  const query: QrQueryInput = {
    format,
    size: String(size),
    color: color.slice(1),
    bg: transparent ? "transparent" : bg.slice(1),
    ec: level,
    margin: String(margin),
  };
  const src = urlOf(V1_ROUTES.getQr, { params: { short_code: code }, query });
  // With a logo the preview is the PNG, which the page draws the logo on.
  const pngSrc = urlOf(V1_ROUTES.getQr, { params: { short_code: code }, query: { ...query, format: "png" } });

  const chooseLogo = async (file: File | undefined) => {
    setError("");
    if (!file) return;
    try {
      if (!file.type.startsWith("image/")) throw new Error("Choose an image file for the logo.");
      const [image, dataUrl] = await Promise.all([createImageBitmap(file), readDataUrl(file)]);
      setLogo({ name: file.name, image, dataUrl });
    } catch (err) {
      setError(
        err instanceof Error && err.message.startsWith("Choose") ? err.message : "This image cannot be read.",
      );
    }
  };

  const download = async () => {
    setError("");
    try {
      const qr = await fetchQr(src);
      const blob = !logo ? qr : format === "svg" ? await svgWithLogo(qr, logo) : await pngWithLogo(qr, logo);
      const a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = `${code}-qr.${format}`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    } catch (err) {
      setError(err instanceof Error ? err.message : "Download failed.");
    }
  };

  return (
    <div class="qr-designer">
      <div class="qr-controls">
        <label>
          Format
          <select value={format} onChange={(e) => setFormat(e.currentTarget.value as "png" | "svg")}>
            {QrFormat.options.map((f) => (
              <option key={f} value={f}>
                {f.toUpperCase()}
              </option>
            ))}
          </select>
        </label>
        <Range label={`Size: ${size} px`} min={100} max={1000} step={50} value={size} onChange={setSize} />
        <label>
          Colour
          <input type="color" value={color} onInput={(e) => setColor(e.currentTarget.value)} />
        </label>
        <label>
          Background
          <input
            type="color"
            value={bg}
            disabled={transparent}
            onInput={(e) => setBg(e.currentTarget.value)}
          />
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={transparent}
            onChange={(e) => setTransparent(e.currentTarget.checked)}
          />
          Transparent background
        </label>
        <ErrorCorrectionField level={level} locked={logo !== null} onChange={setEc} />
        <Range label={`Margin: ${margin}`} min={0} max={4} step={1} value={margin} onChange={setMargin} />
        <LogoPicker
          inputId={`qr-logo-${code}`}
          logo={logo}
          onChoose={(file) => void chooseLogo(file)}
          onRemove={() => setLogo(null)}
        />
        <button type="button" class="btn primary" onClick={download}>
          Download {format.toUpperCase()}
        </button>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </div>
      <div class="qr-image checker">
        {logo ? (
          <LogoPreview src={pngSrc} logo={logo} alt={`QR code for /${code} with a logo`} />
        ) : (
          <WorkspaceImage src={src} alt={`QR code for /${code}`} size={220} />
        )}
      </div>
    </div>
  );
}

type EcLevel = "L" | "M" | "Q" | "H";

function Range(props: {
  label: string;
  min: number;
  max: number;
  step: number;
  value: number;
  onChange: (value: number) => void;
}) {
  return (
    <label>
      {props.label}
      <input
        type="range"
        min={props.min}
        max={props.max}
        step={props.step}
        value={props.value}
        onInput={(e) => props.onChange(Number(e.currentTarget.value))}
      />
    </label>
  );
}

/** The level of error correction, held at High (`locked`) while a logo covers part of the code. */
function ErrorCorrectionField({
  level,
  locked,
  onChange,
}: {
  level: EcLevel;
  locked: boolean;
  onChange: (level: EcLevel) => void;
}) {
  return (
    <label>
      Error correction
      <select
        value={level}
        disabled={locked}
        aria-describedby={locked ? "qr-ec-note" : undefined}
        onChange={(e) => onChange(e.currentTarget.value as EcLevel)}
      >
        {QrErrorCorrection.options.map((level) => (
          <option key={level} value={level}>
            {{ L: "Low (7%)", M: "Medium (15%)", Q: "Quartile (25%)", H: "High (30%)" }[level]}
          </option>
        ))}
      </select>
      {locked && (
        <span class="hint" id="qr-ec-note">
          High while a logo is on the code.
        </span>
      )}
    </label>
  );
}

function LogoPicker({
  inputId,
  logo,
  onChoose,
  onRemove,
}: {
  inputId: string;
  logo: Logo | null;
  onChoose: (file: File | undefined) => void;
  onRemove: () => void;
}) {
  return (
    <div class="qr-logo">
      {logo ? (
        <div class="qr-logo-chosen">
          <span class="qr-logo-label">Logo</span>
          <span class="qr-logo-name">{logo.name}</span>
          <button type="button" class="btn small" onClick={onRemove}>
            Remove logo
          </button>
        </div>
      ) : (
        <>
          <label for={inputId}>Logo in the centre</label>
          <input
            id={inputId}
            type="file"
            accept="image/png,image/jpeg,image/webp"
            onChange={(e) => onChoose(e.currentTarget.files?.[0])}
          />
        </>
      )}
    </div>
  );
}
