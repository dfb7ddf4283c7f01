-- CreateTable
CREATE TABLE "stats_deltas" (
    "sign" SMALLINT NOT NULL,
    "created_at" TIMESTAMPTZ(0) NOT NULL,
    "stage" "Stage" NOT NULL,
    "completed_at" TIMESTAMPTZ(0),
    "volume_usd" DECIMAL NOT NULL,
    "source_chain" TEXT NOT NULL,
    "dest_chain" TEXT NOT NULL,
    "source_asset" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "deadline_at" TIMESTAMPTZ(0) NOT NULL,
    "recount" BOOLEAN NOT NULL
);

-- Every create and escrow event updated the same hourly, pair, asset and pending rollup rows, so
-- concurrent writers queued on their row locks. The triggers now append deltas instead, which the stats
-- keeper folds into the rollups (prisma/sql/stats-triggers.sql), and the statistics read the rollups
-- through the views below, which add the deltas not folded yet: exact at every moment.

-- Rollup rows plus unfolded deltas in the same shape, not summed: readers sum what they select.
CREATE VIEW stats_hourly_live AS
  SELECT hour, stage, orders, volume_usd, timed_orders, completion_secs FROM stats_hourly
  UNION ALL
  SELECT stats_hour(created_at), stage, sign, sign * volume_usd, CASE WHEN completed_at IS NULL THEN 0 ELSE sign END,
         sign * stats_completion_secs(created_at, completed_at)
  FROM stats_deltas;

CREATE VIEW stats_pending_live AS
  SELECT deadline_minute, created_minute, orders FROM stats_pending
  UNION ALL
  SELECT stats_minute(deadline_at), stats_minute(created_at), sign FROM stats_deltas WHERE stage = 'pending';

-- Pairs and assets summed per key, as the top lists rank them.
CREATE VIEW stats_pairs_live AS
  SELECT source_chain, dest_chain, sum(orders) AS orders, sum(volume_usd) AS volume_usd FROM (
    SELECT source_chain, dest_chain, orders, volume_usd FROM stats_pairs
    UNION ALL
    SELECT source_chain, dest_chain, sign, sign * volume_usd FROM stats_deltas
  ) AS p GROUP BY source_chain, dest_chain;

CREATE VIEW stats_assets_live AS
  SELECT asset, sum(orders) AS orders, sum(volume_usd) AS volume_usd FROM (
    SELECT asset, orders, volume_usd FROM stats_assets
    UNION ALL
    SELECT source_asset, sign, sign * volume_usd FROM stats_deltas
  ) AS a GROUP BY asset;

-- Each user with the time of their latest order: the rollup's for users without deltas; for the others
-- the later of the rollup's and their new orders', or, when one of their orders was moved or deleted,
-- the latest from the orders themselves (a user left without orders drops out).
CREATE VIEW stats_users_live AS
  WITH d AS (
    SELECT user_id, max(created_at) FILTER (WHERE sign > 0) AS latest, bool_or(recount) AS recount
    FROM stats_deltas GROUP BY user_id)
  SELECT user_id, last_order_at FROM (
    SELECT s.user_id, s.last_order_at FROM stats_users AS s WHERE NOT EXISTS (SELECT FROM d WHERE d.user_id = s.user_id)
    UNION ALL
    SELECT d.user_id, CASE
      WHEN d.recount THEN (SELECT max(o.created_at) FROM orders AS o WHERE o.user_id = d.user_id)
      ELSE greatest(d.latest, (SELECT s.last_order_at FROM stats_users AS s WHERE s.user_id = d.user_id))
    END
    FROM d
  ) AS u WHERE last_order_at IS NOT NULL;

-- The functions of prisma/sql/stats-triggers.sql.
CREATE OR REPLACE FUNCTION stats_orders_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO stats_deltas (sign, created_at, stage, completed_at, volume_usd, source_chain, dest_chain, source_asset, user_id, deadline_at, recount)
    SELECT 1, created_at, stage, completed_at, volume_usd, source_chain, dest_chain, source_asset, user_id, deadline_at, false
    FROM new_rows;
  ELSIF TG_OP = 'DELETE' THEN
    -- The user's latest order may be the one gone: recounted from the orders.
    INSERT INTO stats_deltas (sign, created_at, stage, completed_at, volume_usd, source_chain, dest_chain, source_asset, user_id, deadline_at, recount)
    SELECT -1, created_at, stage, completed_at, volume_usd, source_chain, dest_chain, source_asset, user_id, deadline_at, true
    FROM old_rows;
  ELSE
    -- Updates that leave every counted column alone add nothing; one that moves an order in time or to
    -- another user has both users' latest orders recounted.
    INSERT INTO stats_deltas (sign, created_at, stage, completed_at, volume_usd, source_chain, dest_chain, source_asset, user_id, deadline_at, recount)
    SELECT x.* FROM old_rows o JOIN new_rows n USING (id)
    CROSS JOIN LATERAL (VALUES ((o.created_at, o.user_id) IS DISTINCT FROM (n.created_at, n.user_id))) AS m(moved)
    CROSS JOIN LATERAL (VALUES
      (-1, o.created_at, o.stage, o.completed_at, o.volume_usd, o.source_chain, o.dest_chain, o.source_asset, o.user_id, o.deadline_at, m.moved),
      (1, n.created_at, n.stage, n.completed_at, n.volume_usd, n.source_chain, n.dest_chain, n.source_asset, n.user_id, n.deadline_at, m.moved)
    ) AS x(sign, created_at, stage, completed_at, volume_usd, source_chain, dest_chain, source_asset, user_id, deadline_at, recount)
    WHERE (o.created_at, o.stage, o.completed_at, o.volume_usd, o.source_chain, o.dest_chain, o.source_asset, o.user_id, o.deadline_at)
      IS DISTINCT FROM (n.created_at, n.stage, n.completed_at, n.volume_usd, n.source_chain, n.dest_chain, n.source_asset, n.user_id, n.deadline_at);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION stats_orders_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE stats_hourly, stats_pairs, stats_assets, stats_users, stats_pending, stats_deltas;
  RETURN NULL;
END $$;

-- Folds every delta visible now into the rollups and deletes it, in one statement: a delta is either still
-- in stats_deltas or in the rollups, never both, never neither. Returns how many were folded, or NULL when
-- another fold holds the lock (instances that all run the keeper take turns; a skipped round loses nothing).
-- Rollup rows are locked in key order, and only folds write them, one at a time.
CREATE OR REPLACE FUNCTION stats_fold() RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
  folded BIGINT;
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext('stats_fold')) THEN
    RETURN NULL;
  END IF;
  -- A statement taken after the lock: it sees everything the previous fold committed.
  WITH d AS (DELETE FROM stats_deltas RETURNING *),
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
    RETURNING 1),
  -- Pending orders by deadline and creation minute: leaving `pending` takes an order out.
  pending AS (
    INSERT INTO stats_pending AS sp (deadline_minute, created_minute, orders)
    SELECT stats_minute(deadline_at), stats_minute(created_at), sum(sign)
    FROM d WHERE stage = 'pending' GROUP BY 1, 2 HAVING sum(sign) <> 0 ORDER BY 1, 2
    ON CONFLICT (deadline_minute, created_minute) DO UPDATE SET orders = sp.orders + excluded.orders
    RETURNING 1),
  -- Users: a new order only moves the latest forward; a recounted user's latest comes from the orders
  -- (the same snapshot as the deltas), and a user left without orders is dropped.
  recounted AS (SELECT DISTINCT user_id FROM d WHERE recount),
  gone AS (
    DELETE FROM stats_users AS s
    WHERE s.user_id IN (SELECT user_id FROM recounted)
      AND NOT EXISTS (SELECT 1 FROM orders AS o WHERE o.user_id = s.user_id)
    RETURNING 1),
  recount AS (
    INSERT INTO stats_users AS u (user_id, last_order_at)
    SELECT o.user_id, max(o.created_at) FROM orders AS o WHERE o.user_id IN (SELECT user_id FROM recounted)
    GROUP BY 1 ORDER BY 1
    ON CONFLICT (user_id) DO UPDATE SET last_order_at = excluded.last_order_at
    RETURNING 1),
  latest AS (
    INSERT INTO stats_users AS u (user_id, last_order_at)
    SELECT user_id, max(created_at) FROM d WHERE sign > 0 AND user_id NOT IN (SELECT user_id FROM recounted)
    GROUP BY 1 ORDER BY 1
    ON CONFLICT (user_id) DO UPDATE SET last_order_at = excluded.last_order_at
      WHERE u.last_order_at < excluded.last_order_at
    RETURNING 1)
  SELECT count(*) INTO folded FROM d;
  RETURN folded;
END $$;
