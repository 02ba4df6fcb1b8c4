import { logLevel } from "kafkajs";
import { expect, it } from "vitest";
import { kafkaLogCreator } from "../src/kafka/kafka-log.ts";

function recorded() {
  const lines: { level: string; message: string | undefined; fields: object }[] = [];
  const at = (level: string) => (fields: object, message?: string) => lines.push({ level, message, fields });
  return { lines, logger: { info: at("info"), warn: at("warn"), error: at("error") } };
}

it("logs routine kafkajs errors (rebalances, retried requests) as warnings", () => {
  const { lines, logger } = recorded();
  kafkaLogCreator(logger)(logLevel.WARN)({
    namespace: "Runner",
    level: logLevel.ERROR,
    label: "ERROR",
    log: { timestamp: "t", logger: "kafkajs", message: "The group is rebalancing, re-joining", groupId: "g" },
  });
  expect(lines).toEqual([
    {
      level: "warn",
      message: "kafkajs: The group is rebalancing, re-joining",
      fields: { kafkajs: "Runner", groupId: "g" },
    },
  ]);
});

it("logs a consumer moved past messages it never read (offset out of range) as an error", () => {
  const { lines, logger } = recorded();
  kafkaLogCreator(logger)(logLevel.WARN)({
    namespace: "ConsumerGroup",
    level: logLevel.ERROR,
    label: "ERROR",
    log: {
      timestamp: "t",
      logger: "kafkajs",
      message: "Offset out of range, resetting to default offset",
      topic: "clicks",
      partition: 5,
    },
  });
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ level: "error", fields: { topic: "clicks", partition: 5 } });
  expect(lines[0]!.message).toMatch(/messages skipped/);
});
