-- An order's completion time for the statistics (src/domain/stats.ts): never negative. Escrows are dated by
-- their chain, whose clock may be behind ours, so a claim can be dated before the order was recorded;
-- such an order completed in no time. Immutable as before, so the trigger's subtraction of an order's old
-- row still cancels what its insertion added.
CREATE OR REPLACE FUNCTION stats_completion_secs(created_at TIMESTAMPTZ, completed_at TIMESTAMPTZ) RETURNS NUMERIC
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT coalesce(greatest(0, extract(epoch FROM completed_at - created_at)), 0) $$;

-- The hourly rollups summed the old function's negative times: the rows with timed orders are recounted
-- from the orders with the new one, each through the (stage, created_at) index.
UPDATE stats_hourly AS h
SET completion_secs = coalesce(
  (SELECT sum(stats_completion_secs(o.created_at, o.completed_at)) FROM orders o
   WHERE o.stage = h.stage AND o.created_at >= h.hour AND o.created_at < h.hour + INTERVAL '1 hour'), 0)
WHERE h.timed_orders > 0;
