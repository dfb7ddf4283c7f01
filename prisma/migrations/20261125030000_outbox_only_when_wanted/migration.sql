-- An event no endpoint wants is not written. Most changes happen with no integrator listening for their
-- type, and each outbox row costs its insert, the fan-out's update and the sweep's delete. One trigger
-- serves every writer of the outbox (src/domain/webhook-events.ts). An endpoint hears of the changes
-- committed after it is registered (README, Webhooks); the fan-out still matches each event with the
-- endpoints enabled at that moment, filters included.
CREATE FUNCTION webhook_event_wanted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM webhook_endpoints WHERE disabled_at IS NULL AND NEW.type = ANY (events)) THEN
    RETURN NEW;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER webhook_events_wanted BEFORE INSERT ON webhook_events
  FOR EACH ROW EXECUTE FUNCTION webhook_event_wanted();
