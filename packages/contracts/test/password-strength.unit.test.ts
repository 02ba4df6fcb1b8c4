// The account password rule that both the server and the dashboard's meter run.
import { describe, expect, it } from "vitest";
import {
  PASSWORD_CHECKED_LENGTH,
  PASSWORD_MIN_SCORE,
  passwordStrength,
  passwordUserInputs,
} from "../src/password-strength.ts";

const email = "ada.lovelace@analytical-engine.example";

describe("account password strength", () => {
  it("refuses what a guesser tries first, each with the reason", () => {
    const cases: [string, RegExp][] = [
      [" ".repeat(8), /repeated character/],
      ["12345678", /most used passwords/],
      ["aaaaaaaa", /repeated character/],
      ["password", /most used passwords/],
      ["qwertyuiop", /most used passwords/],
      ["p4ssw0rd", /common/],
      ["university", /single word/],
      ["abcabcabcabc", /repeated pattern/],
      ["zxcvbnm,./", /row of keys/],
    ];
    for (const [password, why] of cases) {
      const result = passwordStrength(password);
      expect(result.acceptable, password).toBe(false);
      expect(result.score, password).toBeLessThan(PASSWORD_MIN_SCORE);
      expect(result.problem, password).toMatch(/^This password is too weak: /);
      expect(result.problem, password).toMatch(why);
    }
  });

  it("refuses a password made of the person's own e-mail address or the service's name", () => {
    // Each is fine for someone else: the e-mail address alone makes it weak.
    for (const password of [
      "adalovelace1815",
      "ada.lovelace.42",
      "analytical-engine",
      "analyticalengine42",
    ]) {
      expect(passwordStrength(password, { email: "someone@else.example" }).acceptable, password).toBe(true);
      const result = passwordStrength(password, { email });
      expect(result.acceptable, password).toBe(false);
      expect(result.problem, password).toMatch(/made from your e-mail address or the service's name/);
    }
    expect(passwordStrength("kurzkurzkurz").problem).toMatch(/repeated pattern/);
  });

  it("names the minimum length before anything else", () => {
    expect(passwordStrength("Xq9#")).toEqual({
      score: 0,
      acceptable: false,
      problem: "Use at least 8 characters.",
    });
  });

  it("accepts a few uncommon words or a generated password", () => {
    for (const password of [
      "correct horse battery",
      "plum-kayak-lantern",
      "k9#Vq2!mTz",
      "Zebra Quartz 71 Fog",
    ]) {
      const result = passwordStrength(password, { email });
      expect(result, password).toEqual({
        score: expect.any(Number),
        acceptable: true,
        problem: null,
      });
      expect(result.score).toBeGreaterThanOrEqual(PASSWORD_MIN_SCORE);
    }
  });

  it("reads only the first characters of a very long password, so one check stays cheap", () => {
    const weakStart = `${"4@".repeat(PASSWORD_CHECKED_LENGTH / 2)}${"plum-kayak-lantern".repeat(10)}`;
    expect(passwordStrength(weakStart)).toEqual(
      passwordStrength(weakStart.slice(0, PASSWORD_CHECKED_LENGTH)),
    );
    const strongStart = `plum-kayak-lantern ${"a".repeat(200)}`;
    expect(passwordStrength(strongStart).acceptable).toBe(true);
  });

  it("takes the address, its name parts and its domain (not the top-level one) as the person's words", () => {
    expect(passwordUserInputs(" Ada.Lovelace@Analytical-Engine.example ")).toEqual([
      "kurz",
      "ada.lovelace@analytical-engine.example",
      "ada.lovelace",
      "adalovelace",
      "ada",
      "lovelace",
      "analytical-engine",
      "analyticalengine",
      "analytical",
      "engine",
    ]);
    expect(passwordUserInputs(undefined)).toEqual(["kurz"]);
  });
});
