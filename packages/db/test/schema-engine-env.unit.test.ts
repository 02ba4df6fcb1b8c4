import { describe, expect, it } from "vitest";
import {
  nativeSchemaEngineInstalled,
  SCHEMA_ENGINE_SHIM,
  schemaEngineEnv,
} from "../engine/schema-engine-env.mjs";

describe("schemaEngineEnv", () => {
  it("leaves a caller's own engine binary alone", () => {
    expect(schemaEngineEnv({ PRISMA_SCHEMA_ENGINE_BINARY: "/opt/schema-engine" })).toEqual({});
    expect(schemaEngineEnv({ PRISMA_MIGRATION_ENGINE_BINARY: "/opt/schema-engine" })).toEqual({});
  });

  it("lets KURZ_SCHEMA_ENGINE force the native engine or the shim", () => {
    expect(schemaEngineEnv({ KURZ_SCHEMA_ENGINE: "native" })).toEqual({});
    expect(schemaEngineEnv({ KURZ_SCHEMA_ENGINE: "wasm" })).toEqual({
      PRISMA_SCHEMA_ENGINE_BINARY: SCHEMA_ENGINE_SHIM,
    });
  });

  it("uses the shim by default only when no native engine is on disk", () => {
    const expected = nativeSchemaEngineInstalled() ? {} : { PRISMA_SCHEMA_ENGINE_BINARY: SCHEMA_ENGINE_SHIM };
    expect(schemaEngineEnv({})).toEqual(expected);
  });

  it("rejects an unknown KURZ_SCHEMA_ENGINE", () => {
    expect(() => schemaEngineEnv({ KURZ_SCHEMA_ENGINE: "rust" })).toThrow(/auto, native or wasm/);
  });
});
