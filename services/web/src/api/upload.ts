// A file upload: the file is the request body (POST /api/v1/imports), which `call` (JSON bodies) does
// not send. Same rules otherwise: the route record gives path and method, the answer is parsed with its
// schema, the session's CSRF token goes along.
import { CSRF_HEADER, ErrorEnvelope, type RouteDef } from "@kurz/contracts";
import type * as z from "zod";
import { ApiFailure, type Output, urlOf } from "./client.ts";

export async function upload<R extends RouteDef>(
  route: R,
  file: Blob,
  opts: { csrfToken: string; query?: Record<string, unknown> },
): Promise<Output<R>> {
  let res: Response;
  try {
    res = await fetch(urlOf(route, { query: opts.query } as never), {
      method: route.method,
      headers: {
        accept: "application/json",
        "content-type": file.type || "application/octet-stream",
        [CSRF_HEADER]: opts.csrfToken,
      },
      body: file,
      credentials: "same-origin",
    });
  } catch {
    throw new ApiFailure(
      0,
      "NETWORK",
      "The server could not be reached. Check your connection and try again.",
    );
  }
  const json: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const parsed = ErrorEnvelope.safeParse(json);
    if (parsed.success)
      throw new ApiFailure(
        res.status,
        parsed.data.error.code,
        parsed.data.error.message,
        parsed.data.error.details,
      );
    throw new ApiFailure(res.status, "BAD_RESPONSE", `The server answered ${res.status}.`);
  }
  const parsed = (route.response as z.ZodType).safeParse(json);
  if (!parsed.success)
    throw new ApiFailure(res.status, "BAD_RESPONSE", "The server sent an unexpected answer.");
  return parsed.data as Output<R>;
}
