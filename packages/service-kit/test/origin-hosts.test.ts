// The origin's own hosts (origin-hosts.ts): every spelling of a listed name is the origin's, on any port;
// nothing else is, and a loopback origin answers under each of this machine's names.
import { describe, expect, it } from "vitest";
import { commonConfigSchema, loadConfig } from "../src/config.ts";
import { originHosts } from "../src/origin-hosts.ts";

describe("originHosts", () => {
  const hosts = originHosts("https://Kurz.example:8443", ["www.kurz.example", "xn--krz-hoa.example"]);

  it("knows PUBLIC_BASE_URL's host and each listed one, in any spelling and on any port", () => {
    expect(hosts.names).toEqual(["kurz.example", "www.kurz.example", "xn--krz-hoa.example"]);
    for (const host of [
      "kurz.example",
      "KURZ.example.",
      "kurz.example:8443",
      "kurz.example:443",
      "www.kurz.example:80",
      "kürz.example",
      undefined,
    ]) {
      expect(hosts.has(host), String(host)).toBe(true);
    }
  });

  it("refuses every other host, its subdomains and its look-alikes, and garbage", () => {
    for (const host of [
      "phish.example",
      "evil.kurz.example",
      "kurz.example.evil",
      "kurzexample",
      "localhost",
      "127.0.0.1",
      "[::1]",
      "kurz.example@evil",
      "kurz.example/x",
      "",
    ]) {
      expect(hosts.has(host), host).toBe(false);
    }
  });

  it("a loopback origin answers under each of this machine's names, and no other", () => {
    const local = originHosts("http://127.0.0.1:8080");
    for (const host of ["127.0.0.1:1", "localhost", "LOCALHOST.", "[::1]:8080", "127.0.0.2"]) {
      expect(local.has(host), host).toBe(true);
    }
    expect(local.has("phish.example")).toBe(false);
    const listed = originHosts("https://kurz.example", ["localhost"]);
    expect(listed.has("127.0.0.1:8080")).toBe(true);
  });

  it("config refuses a PUBLIC_HOSTS entry that is no host name", () => {
    const env = { PORT: "1", PUBLIC_HOSTS: "kurz.example, https://www.kurz.example/" };
    expect(() => loadConfig(commonConfigSchema.extend({}), env)).toThrow(
      /PUBLIC_HOSTS: each must be a host name/,
    );
    const ok = loadConfig(commonConfigSchema, {
      PORT: "1",
      PUBLIC_HOSTS: "kurz.example, www.kurz.example:8080",
    });
    expect(ok.PUBLIC_HOSTS).toEqual(["kurz.example", "www.kurz.example:8080"]);
  });
});
