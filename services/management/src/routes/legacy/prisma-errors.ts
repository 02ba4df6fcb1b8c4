// Prisma error codes the legacy handlers turn into client errors.
export const isUniqueViolation = (err: unknown) => (err as { code?: string } | null)?.code === "P2002";
/** A record the statement needed was gone (e.g. deleted by a concurrent request). */
export const isRecordMissing = (err: unknown) => (err as { code?: string } | null)?.code === "P2025";
