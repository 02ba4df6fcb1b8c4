// The records' types flow through the client: a route's body, params, query and answer are those
// its schemas declare (z.input for what is sent, z.output for what comes back).
import type { CreateLinkBody, LegacyDomainList, Link, LinkAnalytics, ROUTES } from "@kurz/contracts";
import { describe, expectTypeOf, it } from "vitest";
import type * as z from "zod";
import type { CallInput, KurzClient, PageItem, PaginatedRoute, Result, UploadBody } from "../src/index.ts";

describe("route types", () => {
  it("takes a record's body input and answers its response's data", () => {
    expectTypeOf<CallInput<"createLink">["body"]>().toEqualTypeOf<z.input<typeof CreateLinkBody>>();
    expectTypeOf<Result<"createLink">>().toEqualTypeOf<Link>();
    expectTypeOf<KurzClient["v1"]["createLink"]>().parameter(0).toEqualTypeOf<CallInput<"createLink">>();
    expectTypeOf<ReturnType<KurzClient["v1"]["createLink"]>>().resolves.toEqualTypeOf<Link>();
  });

  it("needs path params where the path has them and a query of defaults may be left out", () => {
    // Path params and queries come off the URL as text: a number is taken where any string is.
    expectTypeOf<CallInput<"getLinkAnalytics">["params"]>().toEqualTypeOf<{ link_id: string | number }>();
    expectTypeOf<Result<"getLinkAnalytics">>().toEqualTypeOf<LinkAnalytics>();
    expectTypeOf<CallInput<"listLinks">>().toHaveProperty("query");
    // @ts-expect-error createLink needs its body
    void ((c: KurzClient) => c.v1.createLink());
    // @ts-expect-error getLink needs its id
    void ((c: KurzClient) => c.v1.getLink({}));
    void ((c: KurzClient) => c.v1.listLinks());
  });

  it("puts the legacy routes under legacy without the prefix, answering the whole legacy body", () => {
    expectTypeOf<ReturnType<KurzClient["legacy"]["listDomains"]>>().resolves.toEqualTypeOf<
      z.output<typeof LegacyDomainList>
    >();
    expectTypeOf<KurzClient["v1"]>().not.toHaveProperty("legacyListDomains");
  });

  it("takes a file's bytes as the body of a route that consumes a file", () => {
    expectTypeOf<CallInput<"createImport">["body"]>().toEqualTypeOf<UploadBody>();
    expectTypeOf<Result<"getQr">>().toEqualTypeOf<Uint8Array>();
  });

  it("walks the paginated lists only, item by item", () => {
    expectTypeOf<PageItem<"listLinks">>().toEqualTypeOf<Link>();
    expectTypeOf<"listLinks">().toExtend<PaginatedRoute>();
    expectTypeOf<"legacyListDomains">().toExtend<PaginatedRoute>();
    expectTypeOf<"createLink">().not.toExtend<PaginatedRoute>();
    expectTypeOf<keyof typeof ROUTES>().toEqualTypeOf<
      keyof KurzClient["v1"] | `legacy${Capitalize<keyof KurzClient["legacy"]>}`
    >();
  });
});
