// A link's smart members (docs/smart-links.md): rules, split, query forwarding, click limit, previews
// and app links. Their columns, their part of the link object, what the redirect record compiles from
// them, and the checks the schemas cannot make (a loop back into Kurz, another workspace's image).
import {
  type CreateLinkBody,
  type Link as LinkJson,
  type LinkRule,
  type Og,
  parseHost,
  SMART_LINK_MEMBERS,
  type SmartLinkMember,
  type SmartRecord,
  type SplitArm,
  type UpdateLinkBody,
} from "@kurz/contracts";
import { type Link, Prisma, type PrismaClient } from "@kurz/db";
import { compileSmartLink, type SmartLinkSource } from "@kurz/link-rules";
import { originHosts, validation } from "@kurz/service-kit";
import * as z from "zod";

/** The members of create and update that make a link smart. */
export const SMART_MEMBERS = SMART_LINK_MEMBERS;
export type SmartMember = SmartLinkMember;

type SmartInput = Pick<CreateLinkBody, SmartMember>;
/** What checkSmartMembers looks at: the smart members and broken_url, which is checked as expired_url. */
type CheckedInput = Partial<SmartInput> & { broken_url?: string | null };

/** A stored link's smart columns (Prisma's names). */
export type SmartColumns = Pick<
  Link,
  | "rules"
  | "split"
  | "forwardQuery"
  | "maxClicks"
  | "expiredUrl"
  | "ogTitle"
  | "ogDescription"
  | "ogImageId"
  | "iosUrl"
  | "androidUrl"
>;

/** The smart columns of a link made without any (an import's); it forwards the query as most do. */
export const NO_SMART_COLUMNS: SmartColumns = {
  rules: null,
  split: null,
  forwardQuery: true,
  maxClicks: null,
  expiredUrl: null,
  ogTitle: null,
  ogDescription: null,
  ogImageId: null,
  iosUrl: null,
  androidUrl: null,
};

/** Where an uploaded image is served: public, under the service's own origin. */
export function imageUrlOf(baseUrl: string, imageId: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/api/v1/images/${imageId}`;
}

/**
 * A create's smart columns; `forwardQuery` null when the create does not say (the workspace's default
 * applies, in kurz_create_links).
 */
export function smartColumnsOf(input: SmartInput): Omit<SmartColumns, "forwardQuery"> & {
  forwardQuery: boolean | null;
} {
  return {
    rules: input.rules && input.rules.length > 0 ? (input.rules as Prisma.JsonArray) : null,
    split: input.split ? (input.split as Prisma.JsonArray) : null,
    forwardQuery: input.forward_query ?? null,
    maxClicks: input.max_clicks ?? null,
    expiredUrl: input.expired_url ?? null,
    ogTitle: input.og?.title ?? null,
    ogDescription: input.og?.description ?? null,
    ogImageId: input.og?.image ?? null,
    iosUrl: input.ios_url ?? null,
    androidUrl: input.android_url ?? null,
  };
}

/**
 * What a PATCH sets: each member given replaces the stored one, null removes it. Inside `og` each of
 * title, description and image is its own member (omitted: kept); `og: null` removes the preview.
 */
export function smartUpdateData(body: UpdateLinkBody): Prisma.LinkUpdateInput {
  const data: Prisma.LinkUpdateInput = {};
  if (body.rules !== undefined) {
    data.rules = body.rules === null || body.rules.length === 0 ? Prisma.DbNull : body.rules;
  }
  if (body.split !== undefined) data.split = body.split === null ? Prisma.DbNull : body.split;
  if (body.forward_query !== undefined) data.forwardQuery = body.forward_query;
  if (body.max_clicks !== undefined) data.maxClicks = body.max_clicks;
  if (body.expired_url !== undefined) data.expiredUrl = body.expired_url;
  if (body.ios_url !== undefined) data.iosUrl = body.ios_url;
  if (body.android_url !== undefined) data.androidUrl = body.android_url;
  if (body.og === null) {
    data.ogTitle = null;
    data.ogDescription = null;
    data.ogImage = { disconnect: true };
  } else if (body.og !== undefined) {
    if (body.og.title !== undefined) data.ogTitle = body.og.title;
    if (body.og.description !== undefined) data.ogDescription = body.og.description;
    if (body.og.image === null) data.ogImage = { disconnect: true };
    else if (body.og.image !== undefined) data.ogImage = { connect: { id: body.og.image } };
  }
  return data;
}

/** The smart members of the link object (always sent; null or [] when unset). */
export function smartJson(link: SmartColumns, baseUrl: string): Required<Pick<LinkJson, SmartMember>> {
  const og: Og | null =
    link.ogTitle === null && link.ogDescription === null && link.ogImageId === null
      ? null
      : {
          title: link.ogTitle,
          description: link.ogDescription,
          image: link.ogImageId,
          image_url: link.ogImageId === null ? null : imageUrlOf(baseUrl, link.ogImageId),
        };
  return {
    rules: Array.isArray(link.rules) ? (link.rules as unknown as LinkRule[]) : [],
    split: Array.isArray(link.split) ? (link.split as unknown as SplitArm[]) : null,
    forward_query: link.forwardQuery,
    max_clicks: link.maxClicks,
    expired_url: link.expiredUrl,
    og,
    ios_url: link.iosUrl,
    android_url: link.androidUrl,
  };
}

/** The redirect record's `s` member for a stored link (undefined: it redirects as a plain link). */
export function compileSmart(link: SmartColumns, baseUrl: string | undefined): SmartRecord | undefined {
  const source: SmartLinkSource = {
    rules: Array.isArray(link.rules) ? (link.rules as unknown as LinkRule[]) : null,
    split: Array.isArray(link.split) ? (link.split as unknown as SplitArm[]) : null,
    forward_query: link.forwardQuery,
    max_clicks: link.maxClicks,
    expired_url: link.expiredUrl,
    og: { title: link.ogTitle, description: link.ogDescription, image: link.ogImageId },
    ios_url: link.iosUrl,
    android_url: link.androidUrl,
  };
  // Without a base URL (an operator's import, which sets no preview) an image has no absolute URL.
  return compileSmartLink(source, {
    imageUrl: (id) => (baseUrl === undefined ? `/api/v1/images/${id}` : imageUrlOf(baseUrl, id)),
  });
}

/** What the checks of smart members need: the database and the service's own hosts. */
export interface SmartCheckDeps {
  prisma: PrismaClient;
  /** The service's public origin; absent (an operator's tool), only branded domains count as loops. */
  baseUrl?: string;
  publicHosts?: readonly string[];
}

const LOOP_MESSAGE = "Points at a Kurz short link; a link may not send its visitors to another short link";
const IMAGE_MESSAGE = "Expected the id of an image uploaded to POST /api/v1/images by this workspace";

/**
 * The checks of a create's or update's smart members that the schemas cannot make, as one 400
 * VALIDATION_ERROR with every problem at its path: no destination (rule, split arm, expired_url, app
 * link, and broken_url, which is not a smart member but a destination all the same) may be a Kurz short link, which would loop or chain (the service's own hosts and every branded
 * domain Kurz knows, verified or not), and og.image must be an image of this workspace (another
 * workspace's id answers as an unknown one).
 */
export async function checkSmartMembers(
  deps: SmartCheckDeps,
  accountId: string,
  input: CheckedInput,
): Promise<void> {
  const targets: { path: (string | number)[]; url: string }[] = [];
  input.rules?.forEach((rule, i) => void targets.push({ path: ["rules", i, "url"], url: rule.url }));
  input.split?.forEach((arm, i) => void targets.push({ path: ["split", i, "url"], url: arm.url }));
  for (const member of ["expired_url", "ios_url", "android_url", "broken_url"] as const) {
    const url = input[member];
    if (typeof url === "string") targets.push({ path: [member], url });
  }
  const imageId = input.og?.image ?? null;
  if (targets.length === 0 && imageId === null) return;

  const platform = deps.baseUrl !== undefined ? originHosts(deps.baseUrl, deps.publicHosts) : null;
  const hosted = targets.map((t) => ({ ...t, host: webHostOf(t.url) }));
  const hosts = [...new Set(hosted.flatMap((t) => (t.host === null ? [] : [t.host.name])))];
  const [branded, image] = await Promise.all([
    hosts.length > 0
      ? deps.prisma.domain.findMany({ where: { host: { in: hosts } }, select: { host: true } })
      : [],
    imageId !== null
      ? deps.prisma.image.findFirst({ where: { id: imageId, accountId }, select: { id: true } })
      : null,
  ]);
  const brandedHosts = new Set(branded.map((d) => d.host));
  const issues: z.core.$ZodIssue[] = [];
  for (const t of hosted) {
    if (t.host === null) continue;
    if (brandedHosts.has(t.host.name) || platform?.has(t.host.raw)) {
      issues.push({ code: "custom", path: t.path, message: LOOP_MESSAGE, input: t.url });
    }
  }
  if (imageId !== null && image === null) {
    issues.push({ code: "custom", path: ["og", "image"], message: IMAGE_MESSAGE, input: imageId });
  }
  if (issues.length > 0) throw validation(new z.ZodError(issues));
}

/** An http(s) URL's host (as written, and its canonical name); null for an app's own scheme. */
function webHostOf(url: string): { raw: string; name: string } | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
  const name = parseHost(parsed.host)?.hostname;
  return name === undefined ? null : { raw: parsed.host, name };
}

/** Whether a create or update names any smart member (the audit lists them). */
export const smartMembersIn = (body: object): SmartMember[] =>
  SMART_MEMBERS.filter((m) => (body as Record<string, unknown>)[m] !== undefined);
