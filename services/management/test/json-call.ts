// One HTTP call of a test that speaks JSON: the body sent as JSON when given, the answer's text and,
// when it parses, its JSON (null otherwise).

// biome-ignore lint/suspicious/noExplicitAny: the tests read answers of many shapes
type Json = any;

export interface JsonAnswer {
  status: number;
  text: string;
  body: Json;
  headers: Headers;
}

export async function callJson(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<JsonAnswer> {
  const res = await fetch(url, {
    method,
    headers: body !== undefined ? { ...headers, "content-type": "application/json" } : headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: Json = null;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, text, body: parsed, headers: res.headers };
}
