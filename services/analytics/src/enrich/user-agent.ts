// Device type, browser and OS from the User-Agent (ua-parser-js 1.x: 2.x is AGPL), and whether the
// client is a bot or a link-preview fetcher (isbot covers Slackbot, facebookexternalhit, Twitterbot,
// WhatsApp, Discordbot, TelegramBot, LinkedInBot and the like). Parsing is regex work of tens of
// microseconds, and real traffic repeats a small set of agents, so results are cached.
import { isbot } from "isbot";
import UAParser from "ua-parser-js";

export interface Agent {
  device_type: "mobile" | "tablet" | "desktop";
  browser: string;
  os: string;
  is_bot: 0 | 1;
}

const CACHE_MAX = 10_000;
const cache = new Map<string, Agent>();

export function parseAgent(userAgent: string | null): Agent {
  const ua = userAgent ?? "";
  const hit = cache.get(ua);
  if (hit) return hit;
  const result = new UAParser(ua).getResult();
  const type = result.device.type;
  const agent: Agent = {
    // ua-parser names consoles, smart TVs, wearables and so on too; the API knows three kinds.
    device_type: type === "mobile" || type === "tablet" ? type : "desktop",
    browser: result.browser.name ?? "",
    os: result.os.name ?? "",
    is_bot: isbot(ua) ? 1 : 0,
  };
  // Oldest-first eviction: cheap, and a hot agent is re-added on its next miss.
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(ua, agent);
  return agent;
}
