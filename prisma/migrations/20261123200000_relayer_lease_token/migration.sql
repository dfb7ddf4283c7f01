-- AlterTable
ALTER TABLE "relayer_claims" ADD COLUMN     "lease_token" UUID;
