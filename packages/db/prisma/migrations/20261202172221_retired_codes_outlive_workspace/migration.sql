-- DropForeignKey
ALTER TABLE "retired_codes" DROP CONSTRAINT "retired_codes_account_id_fkey";
