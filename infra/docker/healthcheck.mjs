// Container health probe. Plain JS so it starts without tsx; node:22-slim has no curl or wget.
const defaultPorts = { gateway: 8080, management: 8081, redirect: 8082, analytics: 8083 };
const port = process.env.PORT || defaultPorts[process.env.SERVICE ?? ""];
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
