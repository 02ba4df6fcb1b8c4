// Container health probe. Plain JS so it starts without tsx; node:22-slim has no curl or wget.
const defaultPorts = { gateway: 8080, management: 8081, redirect: 8082, analytics: 8083 };
// Services that answer /health only on an operational listener of their own, never on the public
// port (the redirect: OPS_PORT, loopback by default, which this probe inside the container reaches).
const opsPorts = { redirect: 9082 };
const service = process.env.SERVICE ?? "";
const port = process.env.OPS_PORT || opsPorts[service] || process.env.PORT || defaultPorts[service];
if (!port) {
  console.error("healthcheck: set PORT or SERVICE");
  process.exit(1);
}
try {
  const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2500) });
  process.exit(res.ok ? 0 : 1);
} catch (err) {
  console.error(`healthcheck: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
