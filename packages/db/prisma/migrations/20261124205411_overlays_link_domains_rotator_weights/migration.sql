-- AlterTable
ALTER TABLE "campaign_links" ADD COLUMN     "weight" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "links" ADD COLUMN     "domain_id" INTEGER,
ADD COLUMN     "frame_checked_at" TIMESTAMPTZ(3),
ADD COLUMN     "frameable" BOOLEAN,
ADD COLUMN     "overlay_id" INTEGER;

-- AlterTable
ALTER TABLE "overlays" ADD COLUMN     "bg_color" TEXT NOT NULL DEFAULT '#FFFFFF',
ADD COLUMN     "button_color" TEXT NOT NULL DEFAULT '#2563EB',
ADD COLUMN     "button_label" TEXT,
ADD COLUMN     "button_url" TEXT,
ADD COLUMN     "fields" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "position" TEXT NOT NULL DEFAULT 'bottom',
ADD COLUMN     "text" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "text_color" TEXT NOT NULL DEFAULT '#111111',
ADD COLUMN     "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- CreateTable
CREATE TABLE "overlay_submissions" (
    "id" SERIAL NOT NULL,
    "overlay_id" INTEGER NOT NULL,
    "account_id" UUID NOT NULL,
    "link_id" UUID NOT NULL,
    "name" TEXT,
    "email" TEXT,
    "phone" TEXT,
    "message" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "overlay_submissions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "overlay_submissions_overlay_id_id_idx" ON "overlay_submissions"("overlay_id", "id");

-- CreateIndex
CREATE INDEX "overlay_submissions_account_id_id_idx" ON "overlay_submissions"("account_id", "id");

-- CreateIndex
CREATE INDEX "links_overlay_id_idx" ON "links"("overlay_id");

-- CreateIndex
CREATE INDEX "links_domain_id_idx" ON "links"("domain_id");

-- AddForeignKey
ALTER TABLE "links" ADD CONSTRAINT "links_overlay_id_fkey" FOREIGN KEY ("overlay_id") REFERENCES "overlays"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "links" ADD CONSTRAINT "links_domain_id_fkey" FOREIGN KEY ("domain_id") REFERENCES "domains"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "overlay_submissions" ADD CONSTRAINT "overlay_submissions_overlay_id_fkey" FOREIGN KEY ("overlay_id") REFERENCES "overlays"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- kurz_create_link (decision 0019) also sets a link's overlay, branded domain and the destination's
-- framing check (issue 13). The caller has checked that the overlay and the domain are the account's.
DROP FUNCTION kurz_create_link(uuid, uuid, text, text, text, text, timestamptz, timestamptz, boolean,
  timestamptz, text, jsonb);
CREATE FUNCTION kurz_create_link(
  p_id uuid,
  p_account uuid,
  p_code text,
  p_url text,
  p_title text,
  p_password_hash text,
  p_expires_at timestamptz,
  p_now timestamptz,
  p_generated boolean,
  p_cutoff timestamptz,
  p_topic text,
  p_event jsonb,
  p_overlay integer,
  p_domain integer,
  p_frameable boolean,
  p_frame_checked_at timestamptz
) RETURNS timestamptz
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_expires timestamptz;
BEGIN
  INSERT INTO links (id, account_id, short_code, original_url, title, password_hash, is_active,
                     analytics_public, expires_at, created_at, updated_at,
                     overlay_id, domain_id, frameable, frame_checked_at)
  SELECT p_id, a.id, p_code, p_url, p_title, p_password_hash, true, false,
         COALESCE(p_expires_at, now() + make_interval(hours => a.default_expiry_hours)), p_now, p_now,
         p_overlay, p_domain, p_frameable, p_frame_checked_at
  FROM accounts a
  WHERE a.id = p_account
    AND NOT (p_generated AND EXISTS (SELECT 1 FROM retired_codes WHERE short_code = p_code))
  RETURNING expires_at INTO v_expires;
  IF NOT FOUND THEN
    IF NOT EXISTS (SELECT 1 FROM accounts WHERE id = p_account) THEN
      RAISE EXCEPTION 'unknown account' USING ERRCODE = 'KZ401';
    END IF;
    RAISE EXCEPTION 'the code is retired' USING ERRCODE = 'KZ409';
  END IF;

  INSERT INTO outbox_events (topic, key, payload)
  VALUES (p_topic, p_id::text, jsonb_set(p_event, '{link,expires_at}',
    COALESCE(to_jsonb(to_char(v_expires AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')), 'null')));

  UPDATE accounts SET link_count = link_count + 1
  WHERE id = p_account AND link_count + 1 <= link_limit
    AND NOT EXISTS (SELECT 1 FROM retired_codes WHERE short_code = p_code
      AND account_id <> p_account AND retired_at > p_cutoff);
  IF NOT FOUND THEN
    IF EXISTS (SELECT 1 FROM retired_codes WHERE short_code = p_code
        AND account_id <> p_account AND retired_at > p_cutoff) THEN
      RAISE EXCEPTION 'the code is reserved' USING ERRCODE = 'KZ409';
    END IF;
    RAISE EXCEPTION 'link limit reached' USING ERRCODE = 'KZ403';
  END IF;
  RETURN v_expires;
END
$$;
