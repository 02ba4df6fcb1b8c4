// The QR designer: every option GET /api/v1/qr takes (QrQuery), previewed live and downloaded as the
// file the API renders.
import { QrErrorCorrection, QrFormat, type QrQueryInput, V1_ROUTES } from "@kurz/contracts";
import { useState } from "preact/hooks";
import { urlOf, workspaceHeaders } from "../api/client.ts";
import { WorkspaceImage } from "./WorkspaceFiles.tsx";

export function QrDesigner({ code }: { code: string }) {
  const [format, setFormat] = useState<"png" | "svg">("png");
  const [size, setSize] = useState(400);
  const [color, setColor] = useState("#1a1410");
  const [bg, setBg] = useState("#ffffff");
  const [transparent, setTransparent] = useState(false);
  const [ec, setEc] = useState<"L" | "M" | "Q" | "H">("M");
  const [margin, setMargin] = useState(2);
  const [error, setError] = useState("");

  const query: QrQueryInput = {
    format,
    size: String(size),
    color: color.slice(1),
    bg: transparent ? "transparent" : bg.slice(1),
    ec,
    margin: String(margin),
  };
  const src = urlOf(V1_ROUTES.getQr, { params: { short_code: code }, query });

  const download = async () => {
    setError("");
    try {
      const res = await fetch(src, { credentials: "same-origin", headers: workspaceHeaders() });
      if (!res.ok) throw new Error(`The QR code could not be made (${res.status}).`);
      const blob = await res.blob();
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
        <label>
          Size: {size} px
          <input
            type="range"
            min={100}
            max={1000}
            step={50}
            value={size}
            onInput={(e) => setSize(Number(e.currentTarget.value))}
          />
        </label>
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
        <label>
          Error correction
          <select value={ec} onChange={(e) => setEc(e.currentTarget.value as "L" | "M" | "Q" | "H")}>
            {QrErrorCorrection.options.map((level) => (
              <option key={level} value={level}>
                {{ L: "Low (7%)", M: "Medium (15%)", Q: "Quartile (25%)", H: "High (30%)" }[level]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Margin: {margin}
          <input
            type="range"
            min={0}
            max={4}
            step={1}
            value={margin}
            onInput={(e) => setMargin(Number(e.currentTarget.value))}
          />
        </label>
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
        <WorkspaceImage src={src} alt={`QR code for /${code}`} size={220} />
      </div>
    </div>
  );
}
