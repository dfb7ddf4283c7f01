-- CreateEnum
CREATE TYPE "ClaimStatus" AS ENUM ('queued', 'submitted', 'confirmed', 'failed');

-- CreateTable
CREATE TABLE "relayer_claims" (
    "order_id" TEXT NOT NULL,
    "commitment" TEXT NOT NULL,
    "status" "ClaimStatus" NOT NULL DEFAULT 'queued',
    "chain" TEXT NOT NULL,
    "swap_id" TEXT NOT NULL,
    "tx_hash" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lease_until" TIMESTAMPTZ(3),
    "submitted_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(0) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(0) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "relayer_claims_pkey" PRIMARY KEY ("order_id")
);

-- CreateIndex
CREATE INDEX "relayer_claims_status_next_attempt_at_idx" ON "relayer_claims"("status", "next_attempt_at");

-- AddForeignKey
ALTER TABLE "relayer_claims" ADD CONSTRAINT "relayer_claims_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
