-- CreateTable
CREATE TABLE "chain_watchers" (
    "chain" TEXT NOT NULL,
    "next_block" BIGINT NOT NULL,
    "last_block_number" BIGINT,
    "last_block_hash" TEXT,
    "owner" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "chain_watchers_pkey" PRIMARY KEY ("chain")
);
