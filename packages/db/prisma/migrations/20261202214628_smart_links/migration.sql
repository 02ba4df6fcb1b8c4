-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "forward_query" BOOLEAN NOT NULL DEFAULT true;

-- AlterTable
ALTER TABLE "links" ADD COLUMN     "android_url" TEXT,
ADD COLUMN     "expired_url" TEXT,
ADD COLUMN     "forward_query" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "ios_url" TEXT,
ADD COLUMN     "max_clicks" INTEGER,
ADD COLUMN     "og_description" TEXT,
ADD COLUMN     "og_image_id" TEXT,
ADD COLUMN     "og_title" TEXT,
ADD COLUMN     "rules" JSONB,
ADD COLUMN     "split" JSONB;

-- Links made before smart links keep redirecting as they did (no query forwarding): they were added
-- with false above; links made from now on default to true (creates pass the workspace's default).
ALTER TABLE "links" ALTER COLUMN "forward_query" SET DEFAULT true;

-- CreateTable
CREATE TABLE "images" (
    "id" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "content_type" TEXT NOT NULL,
    "bytes" BYTEA NOT NULL,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "images_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "utm_templates" (
    "id" SERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "params" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "utm_templates_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "images_account_id_idx" ON "images"("account_id");

-- CreateIndex
CREATE UNIQUE INDEX "utm_templates_account_id_name_key" ON "utm_templates"("account_id", "name");

-- CreateIndex
CREATE INDEX "links_og_image_id_idx" ON "links"("og_image_id");

-- AddForeignKey
ALTER TABLE "links" ADD CONSTRAINT "links_og_image_id_fkey" FOREIGN KEY ("og_image_id") REFERENCES "images"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "images" ADD CONSTRAINT "images_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "utm_templates" ADD CONSTRAINT "utm_templates_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
