-- A public campaign's list page is addressed by public_id, not by the sequential id: counting
-- /c/1, /c/2, ... listed every account's public campaigns. 122 random bits per campaign; existing rows
-- get theirs here (their old /c/<id> addresses stop answering).
-- AlterTable
ALTER TABLE "campaigns" ADD COLUMN     "public_id" TEXT NOT NULL DEFAULT replace((gen_random_uuid())::text, '-'::text, ''::text);

-- CreateIndex
CREATE UNIQUE INDEX "campaigns_public_id_key" ON "campaigns"("public_id");
