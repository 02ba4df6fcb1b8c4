export declare const SCHEMA_ENGINE_SHIM: string;
export declare const PRISMA_CLI: string;
export declare const PACKAGE_DIR: string;
export declare function nativeSchemaEngineInstalled(): boolean;
export declare function schemaEngineEnv(env?: NodeJS.ProcessEnv): { PRISMA_SCHEMA_ENGINE_BINARY?: string };
