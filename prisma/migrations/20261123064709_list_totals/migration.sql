-- DropIndex
DROP INDEX "orders_stage_created_at_idx";

-- CreateIndex
CREATE INDEX "orders_stage_created_at_id_idx" ON "orders"("stage", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "orders_stage_dest_expires_at_idx" ON "orders"("stage", "dest_expires_at");
