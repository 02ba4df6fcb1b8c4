import { type logCreator, logLevel } from "kafkajs";
import type { BusLogger } from "../types.ts";

/**
 * Routes kafkajs logs to the bus logger. kafkajs logs routine rebalances and retried requests at
 * ERROR, so everything from it is at most a warning; failures it cannot recover from reach us as
 * rejected calls or consumer CRASH events, which the adapter logs as errors.
 *
 * One exception: a consumer whose position is no longer in the partition's log (it fell behind the
 * retention, or the log was truncated) is moved by kafkajs to the group's default offset without
 * reading what lay in between. For a consumer starting from the earliest offset, those messages are
 * lost to it, silently but for this line: it is an error.
 */
export function kafkaLogCreator(logger: BusLogger): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      const { message, timestamp: _t, logger: _l, ...extra } = log;
      const fields = { kafkajs: namespace, ...extra };
      if (OFFSET_OUT_OF_RANGE.test(message))
        logger.error(
          fields,
          `bus: kafka consumer position outside the partition's log, messages skipped (kafkajs: ${message})`,
        );
      else if (level <= logLevel.WARN) logger.warn(fields, `kafkajs: ${message}`);
      else logger.info(fields, `kafkajs: ${message}`);
    };
}

const OFFSET_OUT_OF_RANGE = /^Offset out of range, resetting/;
