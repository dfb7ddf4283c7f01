-- Partitions analyzed when they are made (README, Deployment: Data that grows), and the partitions of orders
-- and intents that were never analyzed analyzed now.

-- Makes the monthly partitions of orders and intents from the month of from_ts to the month of to_ts
-- (UTC months) that do not exist yet, each analyzed as it is made, and returns how many it made. A month
-- whose rows already sit in the default partition is left to the operator (README, Deployment) and reported
-- with a warning: making it would fail, and moving the rows is a decision to take knowingly.
CREATE OR REPLACE FUNCTION ensure_month_partitions(from_ts TIMESTAMPTZ, to_ts TIMESTAMPTZ) RETURNS INTEGER
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
      -- Analyzed while empty: the planner then knows it holds nothing yet instead of assuming a default size,
      -- and autovacuum analyzes it again after its first rows (its threshold counts from zero rows).
      EXECUTE format('ANALYZE %I', partition);
      made := made + 1;
    END LOOP;
    month := next_month;
  END LOOP;
  RETURN made;
END $$;

DO $$
DECLARE
  partition TEXT;
BEGIN
  FOR partition IN
    SELECT c.relname FROM pg_inherits AS i JOIN pg_class AS c ON c.oid = i.inhrelid
    WHERE i.inhparent IN ('orders'::regclass, 'intents'::regclass) AND c.reltuples < 0
  LOOP
    EXECUTE format('ANALYZE %I', partition);
  END LOOP;
END $$;
