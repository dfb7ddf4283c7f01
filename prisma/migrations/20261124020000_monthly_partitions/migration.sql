-- orders and intents become tables partitioned by month on created_at (README, Deployment: Data that grows).
--
-- A unique index on a partitioned table must contain the partition key, so the keys that must be unique
-- across every month (an order's id, its quote, its commitment, its swap ids) move to two narrow
-- unpartitioned tables, order_keys and swap_keys, which a trigger fills in the statement that inserts the
-- orders. They stay when a month is archived (detached and dropped), so an archived order's commitment,
-- quote or swap ids can never be taken again.
--
-- The existing rows are copied in this migration's transaction; a table far larger than one run of this
-- migration can afford is moved online instead (README, Deployment).

ALTER TABLE orders RENAME TO orders_unpartitioned;
ALTER TABLE intents RENAME TO intents_unpartitioned;

CREATE TABLE intents (LIKE intents_unpartitioned INCLUDING DEFAULTS) PARTITION BY RANGE (created_at);
CREATE TABLE orders (LIKE orders_unpartitioned INCLUDING DEFAULTS) PARTITION BY RANGE (created_at);
-- Rows outside every month made so far (a clock far off, a month not yet made) land here, never fail.
CREATE TABLE intents_default PARTITION OF intents DEFAULT;
CREATE TABLE orders_default PARTITION OF orders DEFAULT;

-- Makes the monthly partitions of orders and intents from the month of from_ts to the month of to_ts
-- (UTC months) that do not exist yet, and returns how many it made. A month whose rows already sit in
-- the default partition is left to the operator (README, Deployment) and reported with a warning: making
-- it would fail, and moving the rows is a decision to take knowingly.
CREATE FUNCTION ensure_month_partitions(from_ts TIMESTAMPTZ, to_ts TIMESTAMPTZ) RETURNS INTEGER
LANGUAGE plpgsql AS $$
DECLARE
  month TIMESTAMPTZ := date_trunc('month', from_ts, 'UTC');
  next_month TIMESTAMPTZ;
  parent TEXT;
  partition TEXT;
  crowded BOOLEAN;
  made INTEGER := 0;
BEGIN
  -- Instances keeping the partitions at the same time take turns.
  PERFORM pg_advisory_xact_lock(hashtext('ensure_month_partitions'));
  WHILE month <= to_ts LOOP
    next_month := month + INTERVAL '1 month';
    FOREACH parent IN ARRAY ARRAY['intents', 'orders'] LOOP
      partition := parent || '_' || to_char(month AT TIME ZONE 'UTC', 'YYYY_MM');
      CONTINUE WHEN to_regclass(partition) IS NOT NULL;
      EXECUTE format('SELECT EXISTS (SELECT FROM %I WHERE created_at >= $1 AND created_at < $2)', parent || '_default')
        INTO crowded USING month, next_month;
      IF crowded THEN
        RAISE WARNING 'partition % not made: %_default holds rows of that month', partition, parent;
        CONTINUE;
      END IF;
      EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', partition, parent, month, next_month);
      made := made + 1;
    END LOOP;
    month := next_month;
  END LOOP;
  RETURN made;
END $$;

-- The months that hold rows (one stray row from a wrong clock makes one month, not every month since), and
-- this one to three months ahead.
SELECT ensure_month_partitions(month, month) FROM (
  SELECT DISTINCT date_trunc('month', created_at, 'UTC') AS month FROM orders_unpartitioned
  UNION SELECT DISTINCT date_trunc('month', created_at, 'UTC') FROM intents_unpartitioned
) AS months;
SELECT ensure_month_partitions(now(), now() + INTERVAL '3 months');

INSERT INTO intents SELECT * FROM intents_unpartitioned;
INSERT INTO orders SELECT * FROM orders_unpartitioned;

-- The keys unique across all months. An escrow event finds its order through swap_keys.
CREATE TABLE order_keys (
    "id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(0) NOT NULL,
    "quote_id" TEXT NOT NULL,
    "commitment_hash" TEXT NOT NULL,

    CONSTRAINT "order_keys_pkey" PRIMARY KEY ("id")
);
CREATE TABLE swap_keys (
    "swap_id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(0) NOT NULL,

    CONSTRAINT "swap_keys_pkey" PRIMARY KEY ("swap_id")
);
INSERT INTO order_keys (id, created_at, quote_id, commitment_hash)
  SELECT id, created_at, quote_id, commitment_hash FROM orders_unpartitioned;
INSERT INTO swap_keys (swap_id, order_id, created_at)
  SELECT source_swap_id, id, created_at FROM orders_unpartitioned
  UNION ALL SELECT destination_swap_id, id, created_at FROM orders_unpartitioned;
CREATE UNIQUE INDEX "order_keys_quote_id_key" ON "order_keys"("quote_id");
CREATE UNIQUE INDEX "order_keys_commitment_hash_key" ON "order_keys"("commitment_hash");
CREATE INDEX "swap_keys_order_id_idx" ON "swap_keys"("order_id");

-- Everything that pointed at the old tables.
ALTER TABLE relayer_claims DROP CONSTRAINT "relayer_claims_order_id_fkey";
DROP TABLE orders_unpartitioned;
DROP TABLE intents_unpartitioned;

-- Keys and indexes, under their old names. The partition key completes each unique key; the narrow
-- tables above hold what must be unique alone.
ALTER TABLE intents ADD CONSTRAINT "intents_pkey" PRIMARY KEY ("swap_id", "created_at");
ALTER TABLE orders ADD CONSTRAINT "orders_pkey" PRIMARY KEY ("id", "created_at");
CREATE UNIQUE INDEX "orders_created_at_id_key" ON "orders"("created_at" DESC, "id" DESC);
CREATE INDEX "orders_user_id_created_at_id_idx" ON "orders"("user_id", "created_at" DESC, "id" DESC);
CREATE INDEX "orders_stage_created_at_id_idx" ON "orders"("stage", "created_at" DESC, "id" DESC);
CREATE INDEX "orders_stage_deadline_at_created_at_idx" ON "orders"("stage", "deadline_at", "created_at");
CREATE INDEX "orders_stage_dest_expires_at_idx" ON "orders"("stage", "dest_expires_at");
CREATE INDEX "orders_source_chain_dest_chain_idx" ON "orders"("source_chain", "dest_chain");

-- An order and its intents are written in one statement with one created_at.
ALTER TABLE orders ADD CONSTRAINT "orders_source_swap_id_fkey" FOREIGN KEY ("source_swap_id", "created_at")
  REFERENCES intents("swap_id", "created_at") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE orders ADD CONSTRAINT "orders_destination_swap_id_fkey" FOREIGN KEY ("destination_swap_id", "created_at")
  REFERENCES intents("swap_id", "created_at") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE swap_keys ADD CONSTRAINT "swap_keys_order_id_fkey" FOREIGN KEY ("order_id")
  REFERENCES order_keys("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE relayer_claims ADD CONSTRAINT "relayer_claims_order_key_fkey" FOREIGN KEY ("order_id")
  REFERENCES order_keys("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- The keys follow the orders: claimed in the inserting statement (a duplicate fails it, naming the
-- order_keys or swap_keys constraint), released when the order row is deleted or the table truncated.
-- Never by an archive: a detached month keeps its keys.
CREATE FUNCTION order_keys_claim() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO order_keys (id, created_at, quote_id, commitment_hash)
    SELECT id, created_at, quote_id, commitment_hash FROM new_rows;
  INSERT INTO swap_keys (swap_id, order_id, created_at)
    SELECT source_swap_id, id, created_at FROM new_rows
    UNION ALL SELECT destination_swap_id, id, created_at FROM new_rows;
  RETURN NULL;
END $$;
CREATE FUNCTION order_keys_release() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM swap_keys;
    DELETE FROM order_keys;
  ELSE
    DELETE FROM order_keys k USING old_rows o WHERE k.id = o.id;
  END IF;
  RETURN NULL;
END $$;
-- The keys never change after the insert (checked only for the rare update that touches them).
CREATE FUNCTION order_keys_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'order %: its id, created_at, quote_id, commitment_hash and swap ids never change', OLD.id
    USING ERRCODE = 'integrity_constraint_violation';
END $$;
CREATE TRIGGER orders_keys_insert AFTER INSERT ON orders
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION order_keys_claim();
CREATE TRIGGER orders_keys_update BEFORE UPDATE ON orders FOR EACH ROW
  WHEN ((OLD.id, OLD.created_at, OLD.quote_id, OLD.commitment_hash, OLD.source_swap_id, OLD.destination_swap_id)
    IS DISTINCT FROM (NEW.id, NEW.created_at, NEW.quote_id, NEW.commitment_hash, NEW.source_swap_id, NEW.destination_swap_id))
  EXECUTE FUNCTION order_keys_fixed();
CREATE TRIGGER orders_keys_delete AFTER DELETE ON orders
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION order_keys_release();
CREATE TRIGGER orders_keys_truncate AFTER TRUNCATE ON orders FOR EACH STATEMENT EXECUTE FUNCTION order_keys_release();

-- The statistics triggers, on the new table (their functions, prisma/sql/stats-triggers.sql, are unchanged).
CREATE TRIGGER orders_stats_insert AFTER INSERT ON orders
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_orders_changed();
CREATE TRIGGER orders_stats_update AFTER UPDATE ON orders
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_orders_changed();
CREATE TRIGGER orders_stats_delete AFTER DELETE ON orders
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_orders_changed();
CREATE TRIGGER orders_stats_truncate AFTER TRUNCATE ON orders FOR EACH STATEMENT EXECUTE FUNCTION stats_orders_truncated();
