import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const read = (file: string) => readFileSync(join(import.meta.dirname, "..", file), "utf8");

describe("the Node the tests run on", () => {
  it("is the production image's Node major (lib.sh's IMAGE_NODE_VERSION, the Dockerfile's NODE_IMAGE)", () => {
    const tests = /^IMAGE_NODE_VERSION=(\d+)\.\d+\.\d+$/m.exec(read("local/lib.sh"))?.[1];
    const image = /^ARG NODE_IMAGE=node:(\d+)-/m.exec(read("docker/Dockerfile"))?.[1];
    expect(tests).toMatch(/^\d+$/);
    expect(tests).toBe(image);
  });
});
