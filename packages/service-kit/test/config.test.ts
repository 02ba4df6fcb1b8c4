import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ConfigError,
  commonConfigSchema,
  DEV_ANALYTICS_SALT_SECRET,
  DEV_INTERNAL_TOKEN,
  isLoopbackHost,
  loadConfig,
  port,
} from "../src/index.ts";

const serviceSchema = commonConfigSchema.extend({
  PORT: port(8081),
  DATABASE_URL: z.string().default("postgresql://postgres@127.0.0.1:5432/kurz"),
});

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return [...(err as ConfigError).problems];
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  it("applies the single-machine defaults", () => {
    const config = loadConfig(serviceSchema, {});
    expect(config).toMatchObject({
      LOG_LEVEL: "info",
      INTERNAL_TOKEN: DEV_INTERNAL_TOKEN,
      REDIS_URL: "redis://127.0.0.1:6379",
      BUS: "redis",
      KAFKA_BROKERS: [],
      BUS_PREFIX: "",
      PUBLIC_BASE_URL: "http://127.0.0.1:8080",
      HOST: "127.0.0.1",
      PORT: 8081,
      DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/kurz",
    });
    expect(config.OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
  });

  it("parses the scaled values: broker list, trailing slash, numeric port", () => {
    const config = loadConfig(serviceSchema, {
      BUS: "kafka",
      KAFKA_BROKERS: "kafka-1:9092, kafka-2:9092,",
      PUBLIC_BASE_URL: "https://kurz.example/",
      PORT: "9000",
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://otel-collector:4318",
    });
    expect(config.KAFKA_BROKERS).toEqual(["kafka-1:9092", "kafka-2:9092"]);
    expect(config.PUBLIC_BASE_URL).toBe("https://kurz.example");
    expect(config.PORT).toBe(9000);
    expect(config.OTEL_EXPORTER_OTLP_ENDPOINT).toBe("http://otel-collector:4318");
  });

  it("treats empty variables as unset, as docker-compose passes them", () => {
    const config = loadConfig(serviceSchema, { OTEL_EXPORTER_OTLP_ENDPOINT: "", LOG_LEVEL: "", PORT: "" });
    expect(config.OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    expect(config.LOG_LEVEL).toBe("info");
    expect(config.PORT).toBe(8081);
  });

  it("lists every bad variable in one error, without echoing values", () => {
    const problems = problemsOf(() =>
      loadConfig(serviceSchema, {
        PORT: "eighty",
        BUS: "nats",
        REDIS_URL: "http://cache:6379",
        LOG_LEVEL: "loud",
        PUBLIC_BASE_URL: "ftp://kurz.example",
        BUS_PREFIX: "bad prefix!",
      }),
    );
    const names = problems.map((p) => p.split(":")[0]).sort();
    expect(names).toEqual(["BUS", "BUS_PREFIX", "LOG_LEVEL", "PORT", "PUBLIC_BASE_URL", "REDIS_URL"]);
    expect(problems.join("\n")).not.toMatch(/eighty|nats|cache:6379|loud/);
  });

  it("prints as a readable list rather than a stack into zod", () => {
    const error = (() => {
      try {
        loadConfig(serviceSchema, { PORT: "x", BUS: "nats" });
      } catch (err) {
        return err as Error;
      }
    })();
    expect(error?.stack).toBe(
      "ConfigError: Invalid configuration:\n  - BUS: must be redis or kafka\n  - PORT: must be a port number (0-65535)",
    );
  });

  it("requires a real INTERNAL_TOKEN in production", () => {
    expect(problemsOf(() => loadConfig(serviceSchema, { NODE_ENV: "production" }))).toEqual([
      "INTERNAL_TOKEN: must be set to a secret (not the development default) when NODE_ENV=production",
    ]);
    expect(
      problemsOf(() =>
        loadConfig(serviceSchema, { NODE_ENV: "production", INTERNAL_TOKEN: DEV_INTERNAL_TOKEN }),
      ),
    ).toHaveLength(1);
    const config = loadConfig(serviceSchema, {
      NODE_ENV: "production",
      INTERNAL_TOKEN: "a-long-random-secret",
    });
    expect(config.INTERNAL_TOKEN).toBe("a-long-random-secret");
  });

  it("requires a real analytics salt in production, for schemas that have one", () => {
    const withSalt = serviceSchema.extend({
      ANALYTICS_SALT_SECRET: z.string().default(DEV_ANALYTICS_SALT_SECRET),
    });
    const secret = { NODE_ENV: "production", INTERNAL_TOKEN: "a-long-random-secret", HOST: "0.0.0.0" };
    const refusal =
      "ANALYTICS_SALT_SECRET: must be set to a secret (not the development default) when NODE_ENV=production";
    expect(problemsOf(() => loadConfig(withSalt, secret))).toEqual([refusal]);
    expect(
      problemsOf(() => loadConfig(withSalt, { ...secret, ANALYTICS_SALT_SECRET: DEV_ANALYTICS_SALT_SECRET })),
    ).toEqual([refusal]);
    expect(
      loadConfig(withSalt, { ...secret, ANALYTICS_SALT_SECRET: "salt-secret" }).ANALYTICS_SALT_SECRET,
    ).toBe("salt-secret");
    // Both secrets missing: both named at once.
    expect(problemsOf(() => loadConfig(withSalt, { NODE_ENV: "production" }))).toHaveLength(2);
    // Outside production the development salt is fine.
    expect(loadConfig(withSalt, {}).ANALYTICS_SALT_SECRET).toBe(DEV_ANALYTICS_SALT_SECRET);
  });

  it("refuses the development token on a listener other machines can reach", () => {
    const refusal =
      "INTERNAL_TOKEN: the development default is refused when HOST is not a loopback address; set a secret";
    for (const HOST of ["0.0.0.0", "::", "192.168.1.10", "kurz.example.com", "[::]"]) {
      expect(
        problemsOf(() => loadConfig(serviceSchema, { HOST })),
        HOST,
      ).toEqual([refusal]);
      expect(
        problemsOf(() => loadConfig(serviceSchema, { HOST, INTERNAL_TOKEN: DEV_INTERNAL_TOKEN })),
        HOST,
      ).toEqual([refusal]);
      expect(loadConfig(serviceSchema, { HOST, INTERNAL_TOKEN: "a-long-random-secret" }).HOST).toBe(HOST);
    }
    for (const HOST of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "::ffff:127.0.0.1", ""]) {
      expect(loadConfig(serviceSchema, { HOST }).INTERNAL_TOKEN, HOST).toBe(DEV_INTERNAL_TOKEN);
    }
    // In production the missing secret is reported once, not twice.
    expect(
      problemsOf(() => loadConfig(serviceSchema, { NODE_ENV: "production", HOST: "0.0.0.0" })),
    ).toHaveLength(1);
  });

  it("tells loopback addresses from the rest", () => {
    expect(isLoopbackHost("127.0.0.1")).toBe(true);
    expect(isLoopbackHost("LOCALHOST")).toBe(true);
    expect(isLoopbackHost("0.0.0.0")).toBe(false);
    expect(isLoopbackHost("127.0.0.1.example.com")).toBe(false);
    expect(isLoopbackHost("::ffff:10.0.0.1")).toBe(false);
  });

  it("requires KAFKA_BROKERS when BUS=kafka, reported along with other problems", () => {
    const problems = problemsOf(() => loadConfig(serviceSchema, { BUS: "kafka", PORT: "-1" }));
    expect(problems).toEqual([
      "PORT: must be a port number (0-65535)",
      "KAFKA_BROKERS: is required when BUS=kafka (comma-separated host:port list)",
    ]);
    expect(problemsOf(() => loadConfig(serviceSchema, { BUS: "kafka", KAFKA_BROKERS: "kafka" }))).toEqual([
      "KAFKA_BROKERS: each broker must be host:port",
    ]);
  });

  it("says PORT is required when a service did not give it a default", () => {
    expect(problemsOf(() => loadConfig(commonConfigSchema, {}))).toEqual([
      "PORT: is required (a port number 0-65535)",
    ]);
  });
});
