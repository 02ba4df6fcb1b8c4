// @kurz/sdk: a typed client of the Kurz API (README.md).
export { createKurzClient, type KurzClient, type KurzClientOptions, type RawAnswer } from "./client.ts";
export { KurzApiError, type KurzErrorCode, KurzNetworkError } from "./errors.ts";
export type { RetryOptions } from "./retry.ts";
export type { RouteTypes, UploadBody } from "./route-types.ts";
export type {
  CallArgs,
  CallInput,
  CallOptions,
  Envelope,
  LegacyApi,
  PageItem,
  PaginatedRoute,
  Result,
  RouteName,
  V1Api,
} from "./types.ts";
