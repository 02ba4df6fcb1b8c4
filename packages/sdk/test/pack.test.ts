// The packed SDK stands alone: built and packed as it is shipped, installed into an empty folder with
// no workspace (nothing else to install), imported from ESM and CommonJS, and a user's TypeScript
// (both module kinds) and the README's examples type-checked against its declarations, the records'
// types included.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSdk } from "../build.ts";
import { readmeExamples } from "./examples.ts";

const run = promisify(execFile);
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
let dir = "";
let app = "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kurz-sdk-pack-"));
  const tarball = await buildSdk();
  app = join(dir, "app");
  await mkdir(app);
  await writeFile(join(app, "package.json"), JSON.stringify({ name: "app", private: true }));
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund", tarball], { cwd: app });
}, 180_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

const USE = `
const kurz = createKurzClient({ baseUrl: "https://kurz.example.com", apiKey: "kurz_live_x" });
export async function use(): Promise<string> {
  const link = await kurz.v1.createLink({ body: { url: "https://example.com", custom_alias: "launch" } });
  for await (const item of kurz.paginate("listLinks", { query: { per_page: 50 } })) item.clicks_count.toFixed();
  const domains = await kurz.legacy.listDomains();
  domains.data.domains.map((d) => d.domain);
  try {
    await kurz.v1.getLink({ params: { id: link.id } });
  } catch (error) {
    if (error instanceof KurzApiError) return error.code;
  }
  // @ts-expect-error a link's url is a string
  await kurz.v1.createLink({ body: { url: 1 } });
  // @ts-expect-error no such route
  kurz.v1.makeCoffee();
  return link.short_url;
}
`;

describe("the packed SDK", () => {
  it("holds only the built files and depends on nothing", async () => {
    const installed = join(app, "node_modules");
    expect(await readdir(installed)).toEqual(expect.arrayContaining(["@kurz"]));
    expect((await readdir(installed)).filter((name) => !name.startsWith("."))).toEqual(["@kurz"]);
    expect(await readdir(join(installed, "@kurz/sdk"))).toEqual(
      expect.arrayContaining(["dist", "package.json"]),
    );
  });

  it("imports from ESM and from CommonJS, with a method for every route", async () => {
    const probe = `console.log(JSON.stringify({ v1: Object.keys(c.v1).length, legacy: Object.keys(c.legacy).length, error: typeof KurzApiError }))`;
    const esm = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { createKurzClient, KurzApiError } from "@kurz/sdk"; const c = createKurzClient({ baseUrl: "http://x" }); ${probe}`,
      ],
      { cwd: app },
    );
    const cjs = await run(
      process.execPath,
      [
        "-e",
        `const { createKurzClient, KurzApiError } = require("@kurz/sdk"); const c = createKurzClient({ baseUrl: "http://x" }); ${probe}`,
      ],
      { cwd: app },
    );
    const { ROUTES } = await import("@kurz/contracts");
    const names = Object.keys(ROUTES);
    const expected = {
      v1: names.filter((name) => !name.startsWith("legacy")).length,
      legacy: names.filter((name) => name.startsWith("legacy")).length,
      error: "function",
    };
    expect(JSON.parse(esm.stdout)).toEqual(expected);
    expect(JSON.parse(cjs.stdout)).toEqual(expected);
  });

  it("type-checks a user's ESM and CommonJS files, and the README's examples, against its declarations", async () => {
    await writeFile(
      join(app, "use.mts"),
      `import { createKurzClient, KurzApiError } from "@kurz/sdk";\n${USE}`,
    );
    await writeFile(
      join(app, "use.cts"),
      `import { createKurzClient, KurzApiError } from "@kurz/sdk";\n${USE}`,
    );
    const examples = readmeExamples();
    const exampleFiles = examples.map((example) => `readme-line-${example.line}.mts`);
    for (const [i, example] of examples.entries()) await writeFile(join(app, exampleFiles[i]!), example.code);
    await writeFile(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2022", "DOM", "DOM.AsyncIterable"],
          // The README's examples use Node (process, node:fs): the workspace's @types/node.
          types: ["node"],
          typeRoots: [join(import.meta.dirname, "../../../node_modules/@types")],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ["use.mts", "use.cts", ...exampleFiles],
      }),
    );
    const result = await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: app }).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout, failed: true }),
    );
    expect(result.stdout).toBe("");
  });
});
