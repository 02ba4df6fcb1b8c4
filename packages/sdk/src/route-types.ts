// The request and response types of every public route, read off the route records of
// @kurz/contracts at type level (types only: nothing of contracts or zod runs in the SDK). The build
// (build.ts) writes these same types out as plain declarations, so the packed SDK needs neither.
import type { ROUTES } from "@kurz/contracts";
import type * as z from "zod";

type Defs = typeof ROUTES;

/** What a request member accepts (the schema's input side: defaults may be left out). */
type In<R, M extends string> = R extends { readonly [P in M]: infer S extends z.ZodType }
  ? z.input<S>
  : never;
/**
 * Path params and a query as a caller writes them: the schemas read strings off the URL, so a member
 * that takes any string (a number in text) also takes a number, and one that takes "true"/"false" a
 * boolean.
 */
type FromUrl<R, M extends "params" | "query"> = [In<R, M>] extends [never] ? never : UrlMembers<In<R, M>>;
type UrlMembers<Q> = {
  [P in keyof Q]: Q[P] | (string extends Q[P] ? number : "true" extends Q[P] ? boolean : never);
};
/** What a response carries (the schema's output side). */
type Out<R> = R extends { readonly response: infer S extends z.ZodType } ? z.output<S> : ArrayBuffer;
/** A route whose body is a file (`consumes`): the bytes themselves. */
type Body<R> = R extends { readonly consumes: readonly string[] } ? UploadBody : In<R, "body">;

/** What a file upload may be given as. */
export type UploadBody = Blob | ArrayBuffer | Uint8Array | string;

export type RouteTypes = {
  [K in keyof Defs]: {
    method: Defs[K]["method"];
    path: Defs[K]["path"];
    params: FromUrl<Defs[K], "params">;
    query: FromUrl<Defs[K], "query">;
    body: Body<Defs[K]>;
    response: Out<Defs[K]>;
  };
};
