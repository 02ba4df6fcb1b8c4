/** What the client needs of a route record at run time. */
export interface RouteInfo {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Express style: `/api/v1/links/:id`. */
  path: string;
  /** Answers a JSON envelope (false: bytes, such as a QR image). */
  json: boolean;
  /** The body is a file in one of these media types. */
  consumes?: string[];
  /**
   * A paginated list: "v1" pages by `page` and `meta.total_pages`, "cursor" by `cursor` and
   * `data.next_cursor`, "legacy" by `page` and `data.nextpage`.
   */
  pagination?: "v1" | "cursor" | "legacy";
}
