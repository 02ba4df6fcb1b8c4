// Kept so existing imports resolve; the mapping lives in packages/db (src/errors.ts). Import from @kurz/db.
export { isRecordMissing, isUniqueViolation } from "@kurz/db";
