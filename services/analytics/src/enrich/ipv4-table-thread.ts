// The thread side of geoip.ts's keepTableOf: makes and keeps one IPv4 database's table of ranges,
// reports what came of it, and ends, so that the database it read and the walk's garbage leave with
// its heap.
import { parentPort, workerData } from "node:worker_threads";
import { makeTableOf, type TableOutcome } from "./geoip.ts";

const { file, tableDir } = workerData as { file: string; tableDir: string | undefined };
let outcome: TableOutcome;
try {
  outcome = await makeTableOf(file, tableDir);
} catch (err) {
  outcome = { kind: "failed", message: (err as Error).message };
}
parentPort?.postMessage(outcome);
