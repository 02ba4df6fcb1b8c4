import { type logCreator, logLevel } from "kafkajs";
import type { BusLogger } from "../types.ts";

/**
 * Routes kafkajs logs to the bus logger. kafkajs logs routine rebalances and retried requests at
 * ERROR, so everything from it is at most a warning; failures it cannot recover from reach us as
 * rejected calls or consumer CRASH events, which the adapter logs as errors.
 */
export function kafkaLogCreator(logger: BusLogger): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      const { message, timestamp: _t, logger: _l, ...extra } = log;
      const fields = { kafkajs: namespace, ...extra };
      if (level <= logLevel.WARN) logger.warn(fields, `kafkajs: ${message}`);
      else logger.info(fields, `kafkajs: ${message}`);
    };
}
