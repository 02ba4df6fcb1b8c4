// Building an app only wires routes; no route runs, so dependencies are never touched. Any member
// read while wiring (other than the ones given) fails loudly instead of passing silently.
export function wiringOnly<T>(given: Record<string, unknown>): T {
  const untouchable = new Proxy(
    {},
    {
      get(_t, member) {
        throw new Error(`route check: a dependency's ${String(member)} was used while wiring routes`);
      },
    },
  );
  return new Proxy(given, { get: (t, member) => (member in t ? t[member as string] : untouchable) }) as T;
}
