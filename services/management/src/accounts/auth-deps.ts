// What the account and session use cases need (management's config, turned into values once).
import type { PrismaClient } from "@kurz/db";
import type { Redis } from "ioredis";
import type { KeyLimits } from "../keys/api-keys.ts";
import type { SigninLimits } from "../sessions/signin-limits.ts";

export interface AuthDeps {
  prisma: PrismaClient;
  redis: Redis;
  keyLimits: KeyLimits;
  signup: "open" | "closed";
  sessionTtlMs: number;
  sessionMaxAgeMs: number;
  signinLimits: SigninLimits;
  /** PUBLIC_BASE_URL: decides the cookie's Secure attribute. */
  baseUrl: string;
}
