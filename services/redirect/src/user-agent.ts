// A visitor's device, OS and browser in the terms of smart links' rules, and whether it is a bot or
// link-preview fetcher (isbot: Slackbot, facebookexternalhit, Twitterbot, WhatsApp, Discordbot and the
// like). ua-parser-js 1.x (MIT; 2.x is AGPL) does tens of microseconds of regex work per agent, and
// real traffic repeats a small set of agents, so each agent string is parsed once and kept in an LRU.
// The device defaults to desktop as analytics' enrichment does (services/analytics/src/enrich).
import type { Device, RuleBrowser, RuleOs } from "@kurz/contracts";
import { isbot } from "isbot";
import { LRUCache } from "lru-cache";
import UAParser from "ua-parser-js";

export interface Agent {
  readonly device: Device;
  readonly os: RuleOs | null;
  readonly browser: RuleBrowser | null;
  readonly bot: boolean;
}

/** Agents kept; a busy instance sees a few thousand distinct ones. */
const CACHE_MAX = 10_000;
/** Longer agents are parsed from this prefix: every signature ua-parser knows sits well within it. */
const PARSE_MAX = 1024;

const cache = new LRUCache<string, Agent>({ max: CACHE_MAX });

// ua-parser-js 1.x's names of the systems rules can name; Linux distributions count as linux.
const OSES: Record<string, RuleOs> = {
  ios: "ios",
  android: "android",
  windows: "windows",
  "mac os": "macos",
  macos: "macos",
  "chromium os": "chromeos",
  "chrome os": "chromeos",
  linux: "linux",
  ubuntu: "linux",
  debian: "linux",
  fedora: "linux",
  mint: "linux",
  arch: "linux",
  gentoo: "linux",
  "red hat": "linux",
  redhat: "linux",
  centos: "linux",
  suse: "linux",
  opensuse: "linux",
  manjaro: "linux",
  kubuntu: "linux",
  xubuntu: "linux",
  slackware: "linux",
};

const BROWSERS: Record<string, RuleBrowser> = {
  chrome: "chrome",
  "mobile chrome": "chrome",
  "chrome webview": "chrome",
  "chrome headless": "chrome",
  chromium: "chrome",
  safari: "safari",
  "mobile safari": "safari",
  firefox: "firefox",
  "mobile firefox": "firefox",
  "firefox focus": "firefox",
  edge: "edge",
  "edge webview": "edge",
  opera: "opera",
  "opera mini": "opera",
  "opera mobi": "opera",
  "opera touch": "opera",
  "opera gx": "opera",
  "samsung internet": "samsung",
  "samsung browser": "samsung",
};

const lookup = <T>(table: Record<string, T>, name: string | undefined): T | null =>
  name === undefined ? null : (table[name.toLowerCase()] ?? null);

function parse(text: string): Agent {
  const r = new UAParser(text).getResult();
  const type = r.device.type;
  return {
    // ua-parser names consoles, smart TVs, wearables and so on too; rules know three kinds.
    device: type === "mobile" || type === "tablet" ? type : "desktop",
    os: lookup(OSES, r.os.name),
    browser: lookup(BROWSERS, r.browser.name),
    bot: isbot(text),
  };
}

/**
 * The agent of a User-Agent string (none: ""), parsed once per distinct string. The cache is keyed
 * by the parsed prefix, so that agents made huge on purpose cannot fill memory.
 */
export function agentOf(userAgent: string | undefined): Agent {
  const ua =
    userAgent === undefined ? "" : userAgent.length > PARSE_MAX ? userAgent.slice(0, PARSE_MAX) : userAgent;
  let agent = cache.get(ua);
  if (agent === undefined) {
    agent = parse(ua);
    cache.set(ua, agent);
  }
  return agent;
}
