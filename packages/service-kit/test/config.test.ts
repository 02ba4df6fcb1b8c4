import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError, commonConfigSchema, DEV_INTERNAL_TOKEN, loadConfig, port } from "../src/index.ts";

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
