-- Workspaces and the people in them: each account is a workspace; each person is a user with a role
-- in one or more workspaces (memberships). Every account that exists becomes a workspace owned by a
-- user with the same id, e-mail and password, so existing keys, sessions and links answer as before.

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "password_hash" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- Hand-written (Prisma does not model CHECK constraints): e-mails are stored lower-case so the unique
-- index is case-insensitive in effect; writers must normalise.
ALTER TABLE "users" ADD CONSTRAINT "users_email_lower_case" CHECK ("email" = lower("email"));

-- CreateTable
CREATE TABLE "memberships" (
    "account_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "role" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memberships_pkey" PRIMARY KEY ("account_id","user_id")
);

-- Hand-written: the roles contracts' ROLE_SCOPES knows.
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_role_known"
    CHECK ("role" IN ('owner', 'admin', 'member', 'viewer'));

-- Hand-written data migration: one user and one owner membership per account, with the account's id.
INSERT INTO "users" ("id", "email", "password_hash", "created_at", "updated_at")
    SELECT "id", "email", "password_hash", "created_at", "updated_at" FROM "accounts";
INSERT INTO "memberships" ("account_id", "user_id", "role", "created_at")
    SELECT "id", "id", 'owner', "created_at" FROM "accounts";

-- DropIndex
DROP INDEX "accounts_email_key";

-- AlterTable
ALTER TABLE "accounts" DROP COLUMN "password_hash",
ADD COLUMN     "name" TEXT;
UPDATE "accounts" SET "name" = split_part("email", '@', 1);
ALTER TABLE "accounts" ALTER COLUMN "name" SET NOT NULL;

-- AlterTable: a key's creator is its account's owner; it keeps every scope an owner grants.
ALTER TABLE "api_keys" ADD COLUMN     "created_by_user_id" UUID,
ADD COLUMN     "scopes" TEXT[];
UPDATE "api_keys" SET "created_by_user_id" = "account_id", "scopes" = ARRAY[
    'links:read', 'links:write', 'analytics:read', 'domains:read', 'domains:write',
    'campaigns:read', 'campaigns:write', 'overlays:read', 'overlays:write',
    'webhooks:read', 'webhooks:write', 'imports:read', 'imports:write',
    'keys:write', 'profile:write', 'workspace:read', 'workspace:admin', 'workspace:owner'];

-- AlterTable: a session belongs to its account's user (same id).
ALTER TABLE "sessions" DROP CONSTRAINT "sessions_account_id_fkey";
DROP INDEX "sessions_account_id_idx";
ALTER TABLE "sessions" RENAME COLUMN "account_id" TO "user_id";

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE INDEX "memberships_user_id_created_at_idx" ON "memberships"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "accounts_email_idx" ON "accounts"("email");

-- CreateIndex
CREATE INDEX "sessions_user_id_idx" ON "sessions"("user_id");

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_created_by_user_id_fkey" FOREIGN KEY ("created_by_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable: pending invitations (an accepted one is deleted: its token works once).
CREATE TABLE "invitations" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "invited_by_user_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "invitations_pkey" PRIMARY KEY ("id")
);

-- Hand-written: the roles contracts' ROLE_SCOPES knows; e-mails stored lower-case.
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_role_known"
    CHECK ("role" IN ('owner', 'admin', 'member', 'viewer'));
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_email_lower_case" CHECK ("email" = lower("email"));

-- CreateIndex
CREATE UNIQUE INDEX "invitations_token_hash_key" ON "invitations"("token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "invitations_account_id_email_key" ON "invitations"("account_id", "email");

-- AddForeignKey
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_invited_by_user_id_fkey" FOREIGN KEY ("invited_by_user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- CreateTable: password reset links (single-use: deleted when used).
CREATE TABLE "password_resets" (
    "token_hash" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "password_resets_pkey" PRIMARY KEY ("token_hash")
);

-- CreateIndex
CREATE INDEX "password_resets_user_id_idx" ON "password_resets"("user_id");

-- AddForeignKey
ALTER TABLE "password_resets" ADD CONSTRAINT "password_resets_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable: pending e-mail address changes (single-use: deleted when confirmed).
CREATE TABLE "email_changes" (
    "token_hash" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "new_email" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "email_changes_pkey" PRIMARY KEY ("token_hash")
);

-- CreateIndex
CREATE INDEX "email_changes_user_id_idx" ON "email_changes"("user_id");

-- AddForeignKey
ALTER TABLE "email_changes" ADD CONSTRAINT "email_changes_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable: browsers each user signed in from before.
CREATE TABLE "known_devices" (
    "user_id" UUID NOT NULL,
    "device_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "known_devices_pkey" PRIMARY KEY ("user_id","device_hash")
);

-- AddForeignKey
ALTER TABLE "known_devices" ADD CONSTRAINT "known_devices_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
