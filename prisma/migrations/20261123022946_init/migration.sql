-- CreateEnum
CREATE TYPE "Side" AS ENUM ('source', 'destination');

-- CreateEnum
CREATE TYPE "Stage" AS ENUM ('pending', 'source_created', 'destination_created', 'destination_claimed', 'completed', 'refunding', 'cancelled');

-- CreateTable
CREATE TABLE "quotes" (
    "id" TEXT NOT NULL,
    "source_asset" TEXT NOT NULL,
    "source_amount" DECIMAL(78,0) NOT NULL,
    "dest_asset" TEXT NOT NULL,
    "dest_amount" DECIMAL(78,0) NOT NULL,
    "source_token_price" DECIMAL NOT NULL,
    "dest_token_price" DECIMAL NOT NULL,
    "fee_bips" INTEGER NOT NULL,
    "solver" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(0) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(0) NOT NULL,
    "consumed_by" TEXT,

    CONSTRAINT "quotes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "orders" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "quote_id" TEXT NOT NULL,
    "source_token_price" DECIMAL NOT NULL,
    "dest_token_price" DECIMAL NOT NULL,
    "fee_bips" INTEGER NOT NULL,
    "commitment_hash" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "stage" "Stage" NOT NULL DEFAULT 'pending',
    "deadline_at" TIMESTAMPTZ(0) NOT NULL,
    "dest_expires_at" TIMESTAMPTZ(0) NOT NULL,
    "source_chain" TEXT NOT NULL,
    "dest_chain" TEXT NOT NULL,
    "source_asset" TEXT NOT NULL,
    "dest_asset" TEXT NOT NULL,
    "volume_usd" DECIMAL NOT NULL,
    "completed_at" TIMESTAMPTZ(0),
    "source_swap_id" TEXT NOT NULL,
    "destination_swap_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(0) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(0) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "orders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "intents" (
    "swap_id" TEXT NOT NULL,
    "side" "Side" NOT NULL,
    "chain" TEXT NOT NULL,
    "asset" TEXT NOT NULL,
    "token_address" TEXT NOT NULL,
    "creator" TEXT NOT NULL,
    "recipient" TEXT NOT NULL,
    "amount" DECIMAL(78,0) NOT NULL,
    "commitment_hash" TEXT NOT NULL,
    "commitment" TEXT,
    "cancel_after" BIGINT NOT NULL,
    "registry_address" TEXT,
    "create_tx_hash" TEXT,
    "create_block_number" BIGINT,
    "create_timestamp" TIMESTAMPTZ(0),
    "claim_tx_hash" TEXT,
    "claim_block_number" BIGINT,
    "claim_timestamp" TIMESTAMPTZ(0),
    "cancel_tx_hash" TEXT,
    "cancel_block_number" BIGINT,
    "cancel_timestamp" TIMESTAMPTZ(0),
    "l1_hop" BOOLEAN NOT NULL DEFAULT false,
    "hop_bridge_factory" TEXT,
    "hop_dest_blockchain_id" TEXT,
    "hop_recipient" TEXT,
    "hop_fee_token" TEXT,
    "hop_relayer_fee" DECIMAL(78,0),
    "final_chain" TEXT,
    "final_token_address" TEXT,
    "bridge_tx_hash" TEXT,
    "created_at" TIMESTAMPTZ(0) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(0) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "intents_pkey" PRIMARY KEY ("swap_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "quotes_consumed_by_key" ON "quotes"("consumed_by");

-- CreateIndex
CREATE UNIQUE INDEX "orders_quote_id_key" ON "orders"("quote_id");

-- CreateIndex
CREATE UNIQUE INDEX "orders_commitment_hash_key" ON "orders"("commitment_hash");

-- CreateIndex
CREATE UNIQUE INDEX "orders_source_swap_id_key" ON "orders"("source_swap_id");

-- CreateIndex
CREATE UNIQUE INDEX "orders_destination_swap_id_key" ON "orders"("destination_swap_id");

-- CreateIndex
CREATE INDEX "orders_user_id_created_at_id_idx" ON "orders"("user_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "orders_stage_created_at_idx" ON "orders"("stage", "created_at" DESC);

-- CreateIndex
CREATE INDEX "orders_source_chain_dest_chain_idx" ON "orders"("source_chain", "dest_chain");

-- CreateIndex
CREATE UNIQUE INDEX "orders_created_at_id_key" ON "orders"("created_at" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "orders" ADD CONSTRAINT "orders_source_swap_id_fkey" FOREIGN KEY ("source_swap_id") REFERENCES "intents"("swap_id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "orders" ADD CONSTRAINT "orders_destination_swap_id_fkey" FOREIGN KEY ("destination_swap_id") REFERENCES "intents"("swap_id") ON DELETE RESTRICT ON UPDATE CASCADE;
