// A line of the continuity snapshot's nginx access log (`log_format kurz_snapshot`,
// docs/continuity.md), for tests that replay clicks with `./kurz import clicks --nginx-log`.

/** A redirect of /code at `ms`, as the snapshot's nginx logs it; `more` overrides any field. */
export const snapshotLogLine = (
  requestId: string,
  code: string,
  ms: number,
  more: Record<string, unknown> = {},
): string =>
  `${JSON.stringify({
    request_id: requestId,
    time: new Date(ms).toISOString(),
    msec: (ms / 1000).toFixed(3),
    method: "GET",
    host: "127.0.0.1",
    uri: `/${code}`,
    status: "302",
    location: "https://example.com/",
    referer: "",
    user_agent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0",
    remote_addr: "203.0.113.7",
    ...more,
  })}\n`;
