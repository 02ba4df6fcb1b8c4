// A passkey authenticator in software, for tests of the server's WebAuthn checks without a browser: an
// ES256 key pair, attestation "none", and assertions signed over the authenticator data and the
// client data's SHA-256, as a platform authenticator makes them. Its counter and flags can be set to
// play a cloned authenticator or one that skipped user verification.
import { createHash, generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { isoCBOR } from "@simplewebauthn/server/helpers";

const b64u = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();

const USER_PRESENT = 0x01;
const USER_VERIFIED = 0x04;
const ATTESTED_DATA = 0x40;

export class SoftwareAuthenticator {
  private readonly keys = generateKeyPairSync("ec", { namedCurve: "P-256" });
  readonly rawId = randomBytes(16);
  counter = 0;

  constructor(
    private readonly rpId: string,
    private readonly origin: string,
  ) {}

  get id(): string {
    return b64u(this.rawId);
  }

  private coseKey(): Uint8Array {
    const jwk = this.keys.publicKey.export({ format: "jwk" });
    return isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, new Uint8Array(Buffer.from(jwk.x!, "base64url"))],
        [-3, new Uint8Array(Buffer.from(jwk.y!, "base64url"))],
      ]),
    );
  }

  private authData(flags: number, attested?: Buffer): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.counter);
    return Buffer.concat([sha256(this.rpId), Buffer.from([flags]), counter, ...(attested ? [attested] : [])]);
  }

  private clientData(type: string, challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }

  /** A PublicKeyCredential's JSON, as both of navigator.credentials' calls answer it, around `response`. */
  private credential(response: Record<string, unknown>): Record<string, unknown> {
    return { id: this.id, rawId: this.id, type: "public-key", clientExtensionResults: {}, response };
  }

  /** navigator.credentials.create's answer (RegistrationResponseJSON) to `options`. */
  register(options: Record<string, unknown>): Record<string, unknown> {
    const length = Buffer.alloc(2);
    length.writeUInt16BE(this.rawId.length);
    const attested = Buffer.concat([Buffer.alloc(16), length, this.rawId, Buffer.from(this.coseKey())]);
    const authData = this.authData(USER_PRESENT | USER_VERIFIED | ATTESTED_DATA, attested);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, string> | Uint8Array>([
        ["fmt", "none"],
        ["attStmt", new Map<string, string>()],
        ["authData", new Uint8Array(authData)],
      ]),
    );
    return this.credential({
      clientDataJSON: b64u(this.clientData("webauthn.create", String(options.challenge))),
      attestationObject: b64u(attestationObject),
      transports: ["internal"],
    });
  }

  /** navigator.credentials.get's answer (AuthenticationResponseJSON) to `options`. */
  assert(
    options: Record<string, unknown>,
    how: { counter?: number; userVerified?: boolean } = {},
  ): Record<string, unknown> {
    this.counter = how.counter ?? this.counter + 1;
    const clientDataJSON = this.clientData("webauthn.get", String(options.challenge));
    const authData = this.authData(USER_PRESENT | (how.userVerified === false ? 0 : USER_VERIFIED));
    const signature = sign("sha256", Buffer.concat([authData, sha256(clientDataJSON)]), this.keys.privateKey);
    return this.credential({
      clientDataJSON: b64u(clientDataJSON),
      authenticatorData: b64u(authData),
      signature: b64u(signature),
    });
  }
}
