// A file upload: the file is the request body (POST /api/v1/imports), which `call` (JSON bodies) does
// not send. Same rules otherwise: the route record gives path and method, the answer is parsed with its
// schema, the session's CSRF token goes along.
import { CSRF_HEADER, type RouteDef } from "@kurz/contracts";
import { type Output, send, urlOf, workspaceHeaders } from "./client.ts";

export async function upload<R extends RouteDef>(
  route: R,
  file: Blob,
  opts: { csrfToken: string; query?: Record<string, unknown> },
): Promise<Output<R>> {
  const headers = {
    accept: "application/json",
    ...workspaceHeaders(),
    "content-type": file.type || "application/octet-stream",
    [CSRF_HEADER]: opts.csrfToken,
  };
  return send(route, urlOf(route, { query: opts.query } as never), headers, file);
}
