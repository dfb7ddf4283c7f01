-- The statistics triggers' functions as they are now: the current source of what the migrations
-- installed last (20261124193704_stats_deltas). To change them, edit this file and copy it into
-- a new migration; test/migrations-drift.test.ts fails while the migrated database runs anything else.
-- The triggers themselves (orders_stats_insert, _update, _delete, _truncate) are in 20261124020000_monthly_partitions.
--
-- A write to `orders` only appends to stats_deltas, one row per order version: +1 for the order as it is
-- now, -1 for it as it was, each with every dimension the rollups group by. No shared row is updated, so
-- concurrent creates and escrow events never wait for each other here. stats_fold() moves the deltas into
-- the rollups (the stats keeper, src/db/stats-keeper.ts, calls it); the stats_*_live views read rollups
-- plus the deltas not folded yet, so every figure is exact whether or not a fold has run.

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
