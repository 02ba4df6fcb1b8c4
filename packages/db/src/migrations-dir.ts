import { join } from "node:path";
import { PACKAGE_DIR } from "../engine/schema-engine-env.mjs";

export const MIGRATIONS_DIR = join(PACKAGE_DIR, "prisma", "migrations");
