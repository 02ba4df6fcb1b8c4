// Passkeys in the browser: the server's WebAuthn options (W3C JSON) go to navigator.credentials, and
// the credential goes back as JSON (PublicKeyCredential.toJSON), so no WebAuthn library ships with the
// dashboard. Browsers without these JSON helpers (before 2024) cannot use passkeys here.
type Json = Record<string, unknown>;

interface JsonCredentialStatics {
  parseCreationOptionsFromJSON(options: unknown): CredentialCreationOptions["publicKey"];
  parseRequestOptionsFromJSON(options: unknown): CredentialRequestOptions["publicKey"];
}

const statics = () =>
  (globalThis as { PublicKeyCredential?: unknown }).PublicKeyCredential as
    | (JsonCredentialStatics & Partial<JsonCredentialStatics>)
    | undefined;

/** Whether this browser can create and use passkeys with the JSON forms the server speaks. */
export const passkeysSupported = (): boolean =>
  typeof statics()?.parseCreationOptionsFromJSON === "function" &&
  typeof statics()?.parseRequestOptionsFromJSON === "function";

const asJson = (credential: Credential | null): Json => {
  if (!credential) throw new Error("No passkey was chosen.");
  return (credential as Credential & { toJSON(): Json }).toJSON();
};

/** Makes a passkey with the server's creation options; its JSON for the server. */
export async function createPasskey(options: Json): Promise<Json> {
  const publicKey = statics()!.parseCreationOptionsFromJSON(options);
  return asJson(await navigator.credentials.create({ publicKey }));
}

/** Signs the server's challenge with a passkey the person picks; the assertion's JSON. */
export async function usePasskey(options: Json): Promise<Json> {
  const publicKey = statics()!.parseRequestOptionsFromJSON(options);
  return asJson(await navigator.credentials.get({ publicKey }));
}

/** What to tell the person when the browser's passkey prompt fails or is dismissed. */
export function passkeyProblem(err: unknown): string {
  if (err instanceof DOMException && err.name === "NotAllowedError")
    return "The passkey prompt was dismissed or timed out. Try again.";
  if (err instanceof DOMException && err.name === "InvalidStateError")
    return "This device already holds a passkey for your account.";
  return err instanceof Error ? err.message : String(err);
}
