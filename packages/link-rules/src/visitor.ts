import type { Device, RuleBrowser, RuleOs } from "@kurz/contracts";

/**
 * What a rule can ask of a visit. The redirect implements it with lazy getters (the User-Agent is
 * parsed, the address looked up, only when a rule asks); the dashboard's "try as" with plain values.
 */
export interface Visitor {
  readonly device: Device;
  readonly os: RuleOs | null;
  readonly browser: RuleBrowser | null;
  /** ISO 3166-1 alpha-2, null when unknown. */
  readonly country: string | null;
  /** The visitor's first language by q-value, lower case (`pt-br`); null when none. */
  readonly language: string | null;
  /** The visit's raw query, without `?`; '' when none. */
  readonly query: string;
  /** Epoch milliseconds of the visit. */
  readonly now: number;
  /** A stable number for this visitor and link (the split arm it gets). */
  readonly key: number;
}
