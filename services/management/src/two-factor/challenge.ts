// The sign-in challenge between the password and the second factor: a random token (only its SHA-256
// is a Redis key) naming the user, valid TWO_FACTOR_CHALLENGE_MINUTES. It survives a wrong code, whose
// cost is the account's sign-in budget, and is deleted by the one request that finishes the sign-in.
// It names no session: by itself it signs nobody in.
import { TWO_FACTOR_CHALLENGE_MINUTES } from "@kurz/contracts";
import { serviceUnavailable, unauthorized } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { hashToken, newToken } from "../security/tokens.ts";

export const CHALLENGE_SECONDS = TWO_FACTOR_CHALLENGE_MINUTES * 60;

export interface ChallengeState {
  userId: string;
  /** The WebAuthn challenge of the passkey options answered with it; null without passkeys. */
  webauthnChallenge: string | null;
}

const keyOf = (token: string) => `two-factor-challenge:${hashToken(token)}`;
const unavailable = () => serviceUnavailable("Sign-in is temporarily unavailable; retry shortly");
export const challengeGone = () =>
  unauthorized("This sign-in has expired or is finished: sign in with your password again");

export async function issueChallenge(redis: Redis, state: ChallengeState): Promise<string> {
  const token = newToken();
  await redis.set(keyOf(token), JSON.stringify(state), "EX", CHALLENGE_SECONDS).catch(() => {
    throw unavailable();
  });
  return token;
}

/** The challenge's state; 401 when it is unknown, expired or finished. */
export async function readChallenge(redis: Redis, token: string): Promise<ChallengeState> {
  const raw = await redis.get(keyOf(token)).catch(() => {
    throw unavailable();
  });
  if (raw === null) throw challengeGone();
  return JSON.parse(raw) as ChallengeState;
}

/** Ends the challenge; false when another request ended it first (only one sign-in per challenge). */
export async function consumeChallenge(redis: Redis, token: string): Promise<boolean> {
  const deleted = await redis.del(keyOf(token)).catch(() => {
    throw unavailable();
  });
  return deleted === 1;
}

/** A WebAuthn challenge kept for the one request that answers it (GETDEL: used once). */
export async function keepWebAuthnChallenge(redis: Redis, key: string, challenge: string): Promise<void> {
  await redis.set(`webauthn:${key}`, challenge, "EX", CHALLENGE_SECONDS).catch(() => {
    throw unavailable();
  });
}

export async function takeWebAuthnChallenge(redis: Redis, key: string): Promise<string | null> {
  return redis.getdel(`webauthn:${key}`).catch(() => {
    throw unavailable();
  });
}
