// Runs: a partition's log cut into consecutive ranges of offsets by a rule that reads only the log
// (offsets, message sizes, cut markers), so every consumer of the partition, in any group and
// whatever its fetches returned, cuts the same runs (decision 0049). A run ends at a message when
//   - its offset + 1 is a multiple of `maxMessages` (aligned: runs resynchronise there whatever came
//     before), or
//   - the run's value bytes reach `maxBytes` (so a run always fits in one fetch), or
//   - it is a cut marker, which a consumer appends when it has caught up with the log and holds an
//     unfinished run (otherwise a quiet partition's last run would never end).
// A run is handed out only once its last message has been fetched; an unfinished tail is fetched
// again later, from its first offset, which is where the consumer's committed position then is.

/** Header of a cut marker (an empty message that only ends the run it lands in). */
export const CUT_MARKER_HEADER = "x-kurz-bus-cut";

export interface RunOptions {
  maxMessages: number;
  maxBytes: number;
}

export interface RunInput {
  offset: string;
  /** Size of the value in bytes (0 for none). */
  bytes: number;
  marker: boolean;
}

export interface Run {
  /** Index into the input of the run's first and last message (inclusive). */
  first: number;
  last: number;
  /** `${firstOffset}-${lastOffset}`: names the run in the partition. */
  id: string;
}

/**
 * Cuts `messages` (consecutive offsets of one partition, starting at a run's first offset) into the
 * runs that are complete; `held` is the index of the first message of the unfinished tail, or
 * `messages.length` when there is none.
 */
export function cutRuns(messages: readonly RunInput[], opts: RunOptions): { runs: Run[]; held: number } {
  const runs: Run[] = [];
  let first = 0;
  let bytes = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    bytes += m.bytes;
    const aligned = (BigInt(m.offset) + 1n) % BigInt(opts.maxMessages) === 0n;
    if (m.marker || aligned || bytes >= opts.maxBytes) {
      runs.push({ first, last: i, id: `${messages[first]!.offset}-${m.offset}` });
      first = i + 1;
      bytes = 0;
    }
  }
  return { runs, held: first };
}

/** Messages `from`..`to` (indexes, `to` exclusive) handed to the handler together, and each one's run. */
export interface Chunk {
  from: number;
  to: number;
  /** The run id of the message at index `from + i` of the chunk. */
  runOf: (i: number) => string;
}

/**
 * Groups complete runs into handler calls of at most `maxBatchSize` messages, a run never split
 * (a run longer than that is a call of its own).
 */
export function chunkRuns(runs: readonly Run[], maxBatchSize: number): Chunk[] {
  const chunks: Chunk[] = [];
  let current: Run[] = [];
  let size = 0;
  const flush = () => {
    if (current.length === 0) return;
    const ids = current.flatMap((r) => Array.from({ length: r.last - r.first + 1 }, () => r.id));
    chunks.push({ from: current[0]!.first, to: current.at(-1)!.last + 1, runOf: (i) => ids[i]! });
    current = [];
    size = 0;
  };
  for (const run of runs) {
    const length = run.last - run.first + 1;
    if (size > 0 && size + length > maxBatchSize) flush();
    current.push(run);
    size += length;
  }
  flush();
  return chunks;
}
