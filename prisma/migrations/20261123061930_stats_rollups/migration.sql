-- CreateTable
CREATE TABLE "stats_hourly" (
    "hour" TIMESTAMPTZ(0) NOT NULL,
    "stage" "Stage" NOT NULL,
    "orders" BIGINT NOT NULL,
    "volume_usd" DECIMAL NOT NULL,
    "timed_orders" BIGINT NOT NULL,
    "completion_secs" DECIMAL NOT NULL,

    CONSTRAINT "stats_hourly_pkey" PRIMARY KEY ("hour","stage")
);

-- CreateTable
CREATE TABLE "stats_users" (
    "user_id" TEXT NOT NULL,

    CONSTRAINT "stats_users_pkey" PRIMARY KEY ("user_id")
);

-- CreateTable
CREATE TABLE "stats_pairs" (
    "source_chain" TEXT NOT NULL,
    "dest_chain" TEXT NOT NULL,
    "orders" BIGINT NOT NULL,
    "volume_usd" DECIMAL NOT NULL,

    CONSTRAINT "stats_pairs_pkey" PRIMARY KEY ("source_chain","dest_chain")
);

-- CreateTable
CREATE TABLE "stats_assets" (
    "asset" TEXT NOT NULL,
    "orders" BIGINT NOT NULL,
    "volume_usd" DECIMAL NOT NULL,

    CONSTRAINT "stats_assets_pkey" PRIMARY KEY ("asset")
);

-- CreateIndex
CREATE INDEX "orders_stage_deadline_at_idx" ON "orders"("stage", "deadline_at");

-- CreateIndex
CREATE INDEX "orders_created_at_user_id_idx" ON "orders"("created_at", "user_id");

-- Statistics rollups, maintained on every write to "orders" (read by src/domain/stats.ts).
-- Statement-level triggers see every row a statement touched at once (transition tables), so a bulk
-- load updates each rollup row once per statement, not once per order. Upserts lock rollup rows in
-- key order, so two writers never wait for each other in opposite orders (no deadlocks).

-- The hour an order counts in: UTC hours, the same boundaries as Math.floor(ms / 3_600_000) in code.
CREATE FUNCTION stats_hour(ts TIMESTAMPTZ) RETURNS TIMESTAMPTZ
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT date_bin('1 hour', ts, TIMESTAMPTZ '2000-01-01 00:00:00+00') $$;

-- Seconds from creation to completion; 0 for an order not completed (it is not counted as timed).
CREATE FUNCTION stats_completion_secs(created_at TIMESTAMPTZ, completed_at TIMESTAMPTZ) RETURNS NUMERIC
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT coalesce(extract(epoch FROM completed_at - created_at), 0) $$;

-- The signed change each statement makes: +1 row per order as it is now, -1 per order as it was.
-- Updates that leave every counted column alone drop out.
CREATE FUNCTION stats_orders_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta TEXT := CASE TG_OP
    WHEN 'INSERT' THEN
      'SELECT 1 AS sign, created_at, stage, completed_at, volume_usd, source_chain, dest_chain, source_asset, user_id FROM new_rows'
    WHEN 'DELETE' THEN
      'SELECT -1 AS sign, created_at, stage, completed_at, volume_usd, source_chain, dest_chain, source_asset, NULL AS user_id FROM old_rows'
    ELSE
      'SELECT x.* FROM old_rows o JOIN new_rows n USING (id)
       CROSS JOIN LATERAL (VALUES
         (-1, o.created_at, o.stage, o.completed_at, o.volume_usd, o.source_chain, o.dest_chain, o.source_asset, NULL),
         (1, n.created_at, n.stage, n.completed_at, n.volume_usd, n.source_chain, n.dest_chain, n.source_asset, n.user_id)
       ) AS x(sign, created_at, stage, completed_at, volume_usd, source_chain, dest_chain, source_asset, user_id)
       WHERE (o.created_at, o.stage, o.completed_at, o.volume_usd, o.source_chain, o.dest_chain, o.source_asset, o.user_id)
         IS DISTINCT FROM (n.created_at, n.stage, n.completed_at, n.volume_usd, n.source_chain, n.dest_chain, n.source_asset, n.user_id)'
  END;
BEGIN
  -- One statement: each data-modifying CTE runs exactly once over the same delta.
  EXECUTE format($sql$
    WITH d AS (%s),
    hourly AS (
      INSERT INTO stats_hourly AS s (hour, stage, orders, volume_usd, timed_orders, completion_secs)
      SELECT stats_hour(created_at), stage, sum(sign), sum(sign * volume_usd),
             coalesce(sum(sign) FILTER (WHERE completed_at IS NOT NULL), 0),
             sum(sign * stats_completion_secs(created_at, completed_at))
      FROM d GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT (hour, stage) DO UPDATE SET
        orders = s.orders + excluded.orders,
        volume_usd = s.volume_usd + excluded.volume_usd,
        timed_orders = s.timed_orders + excluded.timed_orders,
        completion_secs = s.completion_secs + excluded.completion_secs
      RETURNING 1),
    -- A stage change moves an order between two rows of one hour; for pairs and assets it nets to zero.
    pairs AS (
      INSERT INTO stats_pairs AS p (source_chain, dest_chain, orders, volume_usd)
      SELECT source_chain, dest_chain, sum(sign), sum(sign * volume_usd)
      FROM d GROUP BY 1, 2 HAVING sum(sign) <> 0 OR sum(sign * volume_usd) <> 0 ORDER BY 1, 2
      ON CONFLICT (source_chain, dest_chain) DO UPDATE SET
        orders = p.orders + excluded.orders, volume_usd = p.volume_usd + excluded.volume_usd
      RETURNING 1),
    assets AS (
      INSERT INTO stats_assets AS a (asset, orders, volume_usd)
      SELECT source_asset, sum(sign), sum(sign * volume_usd)
      FROM d GROUP BY 1 HAVING sum(sign) <> 0 OR sum(sign * volume_usd) <> 0 ORDER BY 1
      ON CONFLICT (asset) DO UPDATE SET orders = a.orders + excluded.orders, volume_usd = a.volume_usd + excluded.volume_usd
      RETURNING 1)
    -- Users who ever placed an order, only ever added: DO NOTHING takes no row lock on a known user.
    INSERT INTO stats_users (user_id)
    SELECT DISTINCT user_id FROM d WHERE sign = 1 AND user_id IS NOT NULL ORDER BY 1
    ON CONFLICT (user_id) DO NOTHING
  $sql$, delta);
  RETURN NULL;
END $$;

-- Transition tables allow one event per trigger, hence three.
CREATE TRIGGER orders_stats_insert AFTER INSERT ON orders
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_orders_changed();
CREATE TRIGGER orders_stats_update AFTER UPDATE ON orders
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_orders_changed();
CREATE TRIGGER orders_stats_delete AFTER DELETE ON orders
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION stats_orders_changed();

CREATE FUNCTION stats_orders_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE stats_hourly, stats_pairs, stats_assets, stats_users;
  RETURN NULL;
END $$;
CREATE TRIGGER orders_stats_truncate AFTER TRUNCATE ON orders FOR EACH STATEMENT EXECUTE FUNCTION stats_orders_truncated();

-- The book as it stands when this migration runs.
INSERT INTO stats_hourly (hour, stage, orders, volume_usd, timed_orders, completion_secs)
  SELECT stats_hour(created_at), stage, count(*), sum(volume_usd), count(completed_at),
         sum(stats_completion_secs(created_at, completed_at))
  FROM orders GROUP BY 1, 2;
INSERT INTO stats_pairs (source_chain, dest_chain, orders, volume_usd)
  SELECT source_chain, dest_chain, count(*), sum(volume_usd) FROM orders GROUP BY 1, 2;
INSERT INTO stats_assets (asset, orders, volume_usd)
  SELECT source_asset, count(*), sum(volume_usd) FROM orders GROUP BY 1;
INSERT INTO stats_users (user_id) SELECT DISTINCT user_id FROM orders;
