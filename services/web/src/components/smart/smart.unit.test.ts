// The link form's smart draft against the API's own schemas: what a create or an update sends parses
// as CreateLinkBody / UpdateLinkBody, an untouched edit sends nothing, and a VALIDATION_ERROR's nested
// messages are found at their field. The UTM builder's URL rewriting keeps the URL's other parameters.
import { CreateLinkBody, type Link, UpdateLinkBody } from "@kurz/contracts";
import { describe, expect, it } from "vitest";
import { ApiFailure } from "../../api/client.ts";
import {
  createBody,
  draftOf,
  emptyArm,
  emptyRule,
  errorAt,
  localStep,
  ownErrorAt,
  toLocalInput,
  updateBody,
} from "./draft.ts";
import { paramsOf, withUtm } from "./utm.ts";

const link = {
  id: "00000000-0000-4000-8000-000000000001",
  original_url: "https://shop.example/",
  rules: [
    { when: { device: ["mobile"], country: ["DE", "AT"] }, url: "https://shop.example/de" },
    { when: { query: { ref: "nl" }, after: "2026-03-01T10:00:00.000Z" }, url: "https://shop.example/nl" },
  ],
  split: [
    { url: "https://shop.example/a", weight: 3 },
    { url: "https://shop.example/b", weight: 1 },
  ],
  forward_query: true,
  max_clicks: 10,
  expired_url: null,
  og: {
    title: "Sale",
    description: null,
    image: "abcdefghijklmnop",
    image_url: "/api/v1/images/abcdefghijklmnop",
  },
  ios_url: null,
  android_url: null,
} as unknown as Link;

describe("the smart draft", () => {
  it("sends nothing on create when nothing is set, and the account's default for forwarding", () => {
    expect(createBody(draftOf(undefined))).toEqual({});
  });

  it("a create with rules, a split and a preview parses as CreateLinkBody", () => {
    const d = draftOf(undefined);
    d.rules = [
      { ...emptyRule(), device: ["mobile"], country: "de, at", url: "https://shop.example/de" },
      { ...emptyRule(), query: [{ name: "ref", value: "nl" }], url: "https://shop.example/nl" },
    ];
    d.split = [
      { ...emptyArm(), url: "https://shop.example/a", weight: "75" },
      { ...emptyArm(), url: "https://shop.example/b", weight: "25" },
    ];
    d.forwardQuery = false;
    d.maxClicks = "1000";
    d.ogTitle = "Spring sale";
    const body = { url: "https://shop.example/", ...createBody(d) };
    const parsed = CreateLinkBody.parse(body);
    expect(parsed.rules).toEqual([
      { when: { device: ["mobile"], country: ["DE", "AT"] }, url: "https://shop.example/de" },
      { when: { query: { ref: "nl" } }, url: "https://shop.example/nl" },
    ]);
    expect(parsed.split).toEqual([
      { url: "https://shop.example/a", weight: 75 },
      { url: "https://shop.example/b", weight: 25 },
    ]);
    expect(parsed).toMatchObject({ forward_query: false, max_clicks: 1000, og: { title: "Spring sale" } });
  });

  it("an untouched edit sends nothing; a removed rule sends the rest; cleared members send null", () => {
    const d = draftOf(link);
    expect(updateBody(link, d)).toEqual({});
    d.rules = d.rules.slice(1);
    d.split = [];
    d.maxClicks = "";
    const body = updateBody(link, d);
    expect(UpdateLinkBody.parse(body)).toEqual({
      rules: [
        { when: { query: { ref: "nl" }, after: "2026-03-01T10:00:00.000Z" }, url: "https://shop.example/nl" },
      ],
      split: null,
      max_clicks: null,
    });
  });

  it("keeps a rule's seconds through an edit of another rule, and the input allows them", () => {
    const timed = {
      ...link,
      rules: [
        { when: { before: "2026-03-01T10:00:30.000Z" }, url: "https://shop.example/early" },
        { when: { after: "2026-03-01T10:00:00.250Z" }, url: "https://shop.example/late" },
        { when: { device: ["mobile"] }, url: "https://shop.example/m" },
      ],
    } as unknown as Link;
    const d = draftOf(timed);
    expect(localStep(d.rules[0]!.before)).toBe("any");
    expect(localStep(d.rules[1]!.after)).toBe("any");
    expect(localStep(toLocalInput("2026-03-01T10:00:00.000Z"))).toBeUndefined();
    d.rules = d.rules.slice(0, 2);
    const body = UpdateLinkBody.parse(updateBody(timed, d));
    expect(body.rules).toEqual(timed.rules!.slice(0, 2));
  });

  it("finds a VALIDATION_ERROR's messages at a field and below it", () => {
    const failure = new ApiFailure(400, "VALIDATION_ERROR", "Invalid", {
      _errors: [],
      rules: {
        _errors: [],
        0: { _errors: [], when: { _errors: ["A rule needs at least one condition"] } },
        1: {
          _errors: [],
          when: { _errors: [], country: { _errors: [], 1: { _errors: ["Expected a code"] } } },
        },
      },
    });
    expect(errorAt(failure, ["rules", 1, "when", "country"])).toBe("Expected a code");
    expect(ownErrorAt(failure, ["rules", 0, "when"])).toBe("A rule needs at least one condition");
    expect(ownErrorAt(failure, ["rules", 1, "when"])).toBeUndefined();
    expect(errorAt(new Error("x"), ["rules"])).toBeUndefined();
  });
});

describe("the UTM builder's URL", () => {
  it("writes the parameters after the URL's own, and removes emptied ones", () => {
    const url = withUtm("https://shop.example/p?id=7", { utm_source: "nl", utm_medium: "email" });
    expect(url).toBe("https://shop.example/p?id=7&utm_source=nl&utm_medium=email");
    expect(paramsOf(url)).toEqual({ utm_source: "nl", utm_medium: "email" });
    expect(withUtm(url, { utm_source: "nl", utm_medium: " " })).toBe(
      "https://shop.example/p?id=7&utm_source=nl",
    );
    expect(withUtm("not a url", { utm_source: "nl" })).toBe("not a url");
  });
});
