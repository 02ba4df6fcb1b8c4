// How strong an account password must be, in one place for the server that enforces it and the
// dashboard's meter that explains it as the person types (docs/security.md, "Sessions and CSRF";
// decision 0021). Its own entry point (`@kurz/contracts/password-strength`), never re-exported from the
// package's index: the dictionaries weigh about 2 MB, so the dashboard loads this file in a chunk of its
// own when a password field is used, and the rest of contracts stays light.
//
// The estimate is zxcvbn's (@zxcvbn-ts): it finds the cheapest way to guess a password from common
// passwords, English words and names, keyboard patterns, repeats, sequences, dates, and the person's
// own e-mail address, and scores it 0–4 by the guesses that takes. Score 3 ("safely unguessable") means
// about 10^8 guesses or more: against argon2id and the sign-in budgets, far beyond an online guesser.
// The length bounds stay in the zod schemas (auth.ts, legacy.ts); this adds what a shape cannot say.
import { type FeedbackType, ZxcvbnFactory } from "@zxcvbn-ts/core";
import * as common from "@zxcvbn-ts/language-common";
import * as english from "@zxcvbn-ts/language-en";
import { PASSWORD_MIN_LENGTH } from "./auth.ts";

/** zxcvbn's score an account password needs (0–4). */
export const PASSWORD_MIN_SCORE = 3;

export type PasswordScore = 0 | 1 | 2 | 3 | 4;

export interface PasswordStrength {
  /** zxcvbn's score, 0 for a password shorter than the minimum length. */
  score: PasswordScore;
  acceptable: boolean;
  /** Why the password is refused, as one sentence for a person; null when it is acceptable. */
  problem: string | null;
}

// zxcvbn names what made a password cheap to guess by a key (its feedback without translations); each
// becomes the reason a person reads.
const WHY: Record<string, string> = {
  straightRow: "a straight row of keys on a keyboard is easy to guess",
  keyPattern: "a short keyboard pattern is easy to guess",
  simpleRepeat: 'a repeated character (like "aaa" or spaces) is easy to guess',
  extendedRepeat: 'a repeated pattern (like "abcabc") is easy to guess',
  sequences: 'a sequence (like "abc" or "1234") is easy to guess',
  recentYears: "recent years are easy to guess",
  dates: "dates are easy to guess",
  topTen: "it is one of the ten most used passwords",
  topHundred: "it is one of the hundred most used passwords",
  common: "it is a commonly used password",
  similarToCommon: "it is too close to a commonly used password",
  wordByItself: "a single word is easy to guess",
  namesByThemselves: "names on their own are easy to guess",
  commonNames: "common names are easy to guess",
  userInputs: "it is made from your e-mail address or the service's name",
};
const ADVICE = "Add a few uncommon words, or let a password manager make one.";

/** How many leading characters the estimate reads. */
export const PASSWORD_CHECKED_LENGTH = 64;

let factory: ZxcvbnFactory | undefined;
// Building the ranked dictionaries takes a moment: once per process (or page), on first use.
function estimator(): ZxcvbnFactory {
  factory ??= new ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...english.dictionary },
    graphs: common.adjacencyGraphs,
    // Bounds the work per check, which runs on the server's event loop: the l33t matcher's variants
    // grow with the password, so an unbounded 256-character "4@4@…" costs seconds. Beyond 64
    // characters the first 64 decide (a password whose first 64 are weak is weak), and at most 8
    // substitutions are undone. Edit-distance matching stays off: it compares the whole password with
    // every dictionary word, about a second per check.
    maxLength: PASSWORD_CHECKED_LENGTH,
    l33tMaxSubstitutions: 8,
  });
  return factory;
}

/**
 * What a guesser would try first about this person: the e-mail address, its parts (name, company) and
 * the service's own name. zxcvbn treats them as a dictionary of their own.
 */
export function passwordUserInputs(email: string | undefined): string[] {
  const inputs = ["kurz"];
  const address = email?.trim().toLowerCase();
  if (address) {
    const [local = "", domain = ""] = address.split("@");
    const labels = domain.split(".");
    labels.pop(); // the top-level domain says nothing about the person
    inputs.push(address);
    // "ada.lovelace" is typed as "ada.lovelace", "adalovelace", "ada" or "lovelace".
    for (const name of [local, ...labels]) {
      const parts = name.split(/[^\p{L}\p{N}]+/u);
      inputs.push(name, parts.join(""), ...parts);
    }
  }
  return [...new Set(inputs.filter((word) => word.length >= 3))];
}

function reason(feedback: FeedbackType): string {
  const why = (feedback.warning && WHY[feedback.warning]) || "it is too easy to guess";
  return `This password is too weak: ${why}. ${ADVICE}`;
}

/** The account password rule: at least PASSWORD_MIN_LENGTH characters and a score of PASSWORD_MIN_SCORE. */
export function passwordStrength(password: string, context: { email?: string } = {}): PasswordStrength {
  if (password.length < PASSWORD_MIN_LENGTH) {
    return { score: 0, acceptable: false, problem: `Use at least ${PASSWORD_MIN_LENGTH} characters.` };
  }
  const result = estimator().check(password, passwordUserInputs(context.email));
  const score = result.score as PasswordScore;
  if (score >= PASSWORD_MIN_SCORE) return { score, acceptable: true, problem: null };
  return { score, acceptable: false, problem: reason(result.feedback) };
}
