-- The statistics triggers' functions as they are now: the current source of what the migrations
-- installed last (20261123171244_live_pending_rollup). To change them, edit this file and copy it into
-- a new migration; test/migrations-drift.test.ts fails while the migrated database runs anything else.
-- The triggers themselves (orders_stats_insert, _update, _delete, _truncate) are in 20261123061930_stats_rollups.

CREATE OR REPLACE FUNCTION stats_orders_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta TEXT := CASE TG_OP
    WHEN 'INSERT' THEN
      'SELECT 1 AS sign, created_at, stage, completed_at, volume_usd, source_chain, dest_chain, source_asset, user_id, deadline_at FROM new_rows'
    WHEN 'DELETE' THEN
      'SELECT -1 AS sign, created_at, stage, completed_at, volume_usd, source_chain, dest_chain, source_asset, user_id, deadline_at FROM old_rows'
    ELSE
      'SELECT x.* FROM old_rows o JOIN new_rows n USING (id)
       CROSS JOIN LATERAL (VALUES
         (-1, o.created_at, o.stage, o.completed_at, o.volume_usd, o.source_chain, o.dest_chain, o.source_asset, o.user_id, o.deadline_at),
         (1, n.created_at, n.stage, n.completed_at, n.volume_usd, n.source_chain, n.dest_chain, n.source_asset, n.user_id, n.deadline_at)
       ) AS x(sign, created_at, stage, completed_at, volume_usd, source_chain, dest_chain, source_asset, user_id, deadline_at)
       WHERE (o.created_at, o.stage, o.completed_at, o.volume_usd, o.source_chain, o.dest_chain, o.source_asset, o.user_id, o.deadline_at)
         IS DISTINCT FROM (n.created_at, n.stage, n.completed_at, n.volume_usd, n.source_chain, n.dest_chain, n.source_asset, n.user_id, n.deadline_at)'
  END;
  -- Users whose latest order may have moved other than forward.
  recount TEXT := CASE TG_OP
    WHEN 'INSERT' THEN NULL
    WHEN 'DELETE' THEN 'SELECT user_id FROM old_rows'
    ELSE
      'SELECT u.user_id FROM old_rows o JOIN new_rows n USING (id) CROSS JOIN LATERAL (VALUES (o.user_id), (n.user_id)) AS u(user_id)
       WHERE (o.created_at, o.user_id) IS DISTINCT FROM (n.created_at, n.user_id)'
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
    -- Pending orders by deadline and creation minute: leaving `pending` takes an order out.
    INSERT INTO stats_pending AS sp (deadline_minute, created_minute, orders)
    SELECT stats_minute(deadline_at), stats_minute(created_at), sum(sign)
    FROM d WHERE stage = 'pending' GROUP BY 1, 2 HAVING sum(sign) <> 0 ORDER BY 1, 2
    ON CONFLICT (deadline_minute, created_minute) DO UPDATE SET orders = sp.orders + excluded.orders
  $sql$, delta);

  IF TG_OP = 'INSERT' THEN
    INSERT INTO stats_users AS u (user_id, last_order_at)
    SELECT user_id, max(created_at) FROM new_rows GROUP BY 1 ORDER BY 1
    ON CONFLICT (user_id) DO UPDATE SET last_order_at = excluded.last_order_at
      WHERE u.last_order_at < excluded.last_order_at;
  ELSE
    EXECUTE format($sql$
      WITH touched AS (SELECT DISTINCT user_id FROM (%s) AS t),
      gone AS (
        DELETE FROM stats_users AS s
        WHERE s.user_id IN (SELECT user_id FROM touched)
          AND NOT EXISTS (SELECT 1 FROM orders AS o WHERE o.user_id = s.user_id)
        RETURNING 1)
      INSERT INTO stats_users AS u (user_id, last_order_at)
      SELECT o.user_id, max(o.created_at) FROM orders AS o WHERE o.user_id IN (SELECT user_id FROM touched)
      GROUP BY 1 ORDER BY 1
      ON CONFLICT (user_id) DO UPDATE SET last_order_at = excluded.last_order_at
    $sql$, recount);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION stats_orders_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE stats_hourly, stats_pairs, stats_assets, stats_users, stats_pending;
  RETURN NULL;
END $$;
