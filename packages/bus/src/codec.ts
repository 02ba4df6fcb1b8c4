// One wire format for both adapters: values are JSON, keys are strings, headers string to string.

export function encodeValue(value: unknown): string {
  const json = JSON.stringify(value);
  // JSON.stringify(undefined) is undefined, which would silently publish nothing useful.
  if (json === undefined) throw new TypeError("bus: message value is not JSON-serialisable");
  return json;
}

export function decodeValue<T>(raw: string | Buffer | null | undefined): T {
  if (raw === null || raw === undefined) return null as T;
  return JSON.parse(typeof raw === "string" ? raw : raw.toString("utf8")) as T;
}
