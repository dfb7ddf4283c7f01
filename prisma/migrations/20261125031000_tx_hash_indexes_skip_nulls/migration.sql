-- The tx-hash lookups' indexes hold only the hashes that are set. An intent is created with all four
-- empty, and most never get a cancel or bridge hash: indexing the NULLs cost every create eight index
-- entries (two intents, four indexes) that no lookup reads. `col = ANY($1)` implies `col IS NOT NULL`, so
-- the lookup (src/db/order-lookups.ts) still reads these indexes, with a generic plan too.
--
-- The new indexes are built before the old ones go: building takes a SHARE lock on intents (writes wait,
-- reads go on), while DROP INDEX takes an ACCESS EXCLUSIVE one, held until the migration commits; dropped
-- last, it blocks reads only for that moment (README, Deployment: Data that grows).

CREATE INDEX "intents_create_tx_hash_set_idx" ON "intents"("create_tx_hash") WHERE "create_tx_hash" IS NOT NULL;
CREATE INDEX "intents_claim_tx_hash_set_idx" ON "intents"("claim_tx_hash") WHERE "claim_tx_hash" IS NOT NULL;
CREATE INDEX "intents_cancel_tx_hash_set_idx" ON "intents"("cancel_tx_hash") WHERE "cancel_tx_hash" IS NOT NULL;
CREATE INDEX "intents_bridge_tx_hash_set_idx" ON "intents"("bridge_tx_hash") WHERE "bridge_tx_hash" IS NOT NULL;

DROP INDEX "intents_create_tx_hash_idx";
DROP INDEX "intents_claim_tx_hash_idx";
DROP INDEX "intents_cancel_tx_hash_idx";
DROP INDEX "intents_bridge_tx_hash_idx";

-- The names Prisma's schema gives them.
ALTER INDEX "intents_create_tx_hash_set_idx" RENAME TO "intents_create_tx_hash_idx";
ALTER INDEX "intents_claim_tx_hash_set_idx" RENAME TO "intents_claim_tx_hash_idx";
ALTER INDEX "intents_cancel_tx_hash_set_idx" RENAME TO "intents_cancel_tx_hash_idx";
ALTER INDEX "intents_bridge_tx_hash_set_idx" RENAME TO "intents_bridge_tx_hash_idx";
