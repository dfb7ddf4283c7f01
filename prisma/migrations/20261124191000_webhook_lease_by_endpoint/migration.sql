-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_state_next_attempt_at_event__idx" ON "webhook_deliveries"("endpoint_id", "state", "next_attempt_at", "event_seq");
