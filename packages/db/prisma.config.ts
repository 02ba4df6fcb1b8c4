import { defineConfig } from "prisma/config";

// The CLI needs no URL for `generate`; migrate commands get DATABASE_URL from the caller
// (package scripts default it, migrateDatabase() always passes it).
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/kurz" },
});
