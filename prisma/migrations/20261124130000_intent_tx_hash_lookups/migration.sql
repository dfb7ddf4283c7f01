-- Orders by transaction hash (GET /orders?tx_hash=, src/db/order-lookups.ts): one index per hash column,
-- which the lookup combines with a BitmapOr. Made on the partitioned parent, so every monthly partition
-- has them, and so does each month ensure_month_partitions makes later (PARTITION OF inherits them).
-- Hex hashes are stored in lowercase (src/domain/escrow-events.ts), so a plain index serves any letter case.

-- CreateIndex
CREATE INDEX "intents_create_tx_hash_idx" ON "intents"("create_tx_hash");

-- CreateIndex
CREATE INDEX "intents_claim_tx_hash_idx" ON "intents"("claim_tx_hash");

-- CreateIndex
CREATE INDEX "intents_cancel_tx_hash_idx" ON "intents"("cancel_tx_hash");

-- CreateIndex
CREATE INDEX "intents_bridge_tx_hash_idx" ON "intents"("bridge_tx_hash");
