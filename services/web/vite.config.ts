// The dashboard is built to static files (services/web/dist) that the gateway or the edge serves;
// infra/build/web.ts runs this build. Hashed names under /assets/ are served with an immutable cache.
import { defineConfig } from "vite";

export default defineConfig({
  root: import.meta.dirname,
  base: "/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "dist",
    assetsDir: "assets",
    target: "es2022",
    // Strict CSP (script-src 'self'): no inline scripts, no eval; the preload helper ships in a chunk.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    sourcemap: false,
  },
});
