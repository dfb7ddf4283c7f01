-- Whether an endpoint wants an event type, as one SQL function: the outbox trigger asks it for every writer,
-- and the order's create statement asks it before inserting (src/db/row-store.ts), so the common case (no
-- endpoint listening) skips the row and its PL/pgSQL trigger call altogether. LANGUAGE sql and STABLE, so
-- the planner inlines it into the statement that calls it.
CREATE FUNCTION webhook_event_type_wanted(event_type text) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE disabled_at IS NULL AND event_type = ANY (events))
$$;

CREATE OR REPLACE FUNCTION webhook_event_wanted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF webhook_event_type_wanted(NEW.type) THEN
    RETURN NEW;
  END IF;
  RETURN NULL;
END $$;
