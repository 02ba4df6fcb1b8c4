// Retention deletes: a bounded batch per statement, so no one statement holds many row locks, and a
// bounded number of statements per call, so one call ends even when much has piled up.

/**
 * Runs `deleteBatch(batch)` (one statement deleting at most `batch` rows, answering how many went) until
 * it deletes fewer than `batch` or `maxBatches` statements have run; answers how many went in all.
 */
export async function deleteInBatches(
  opts: { batch?: number; maxBatches?: number },
  deleteBatch: (batch: number) => Promise<number>,
): Promise<number> {
  const batch = opts.batch ?? 1000;
  let total = 0;
  for (let i = 0; i < (opts.maxBatches ?? 10); i++) {
    const deleted = await deleteBatch(batch);
    total += deleted;
    if (deleted < batch) break;
  }
  return total;
}
