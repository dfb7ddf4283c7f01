import { useState } from 'preact/hooks';
import { STATS_QUERY, type StatsInterval, type StatsWindow } from '../documents.ts';
import { dataOf, query } from './api.ts';
import { BarChart } from './bar-chart.tsx';
import { time, usd, whole } from './format.ts';
import { useLoad } from './load.ts';
import { Failed, Loading } from './messages.tsx';
import { SeriesChart } from './series-chart.tsx';

/** The series lengths offered: a couple of days by the hour, a month by the day. */
const RANGES: Record<StatsInterval, { last: number; label: string }> = {
  HOUR: { last: 48, label: 'Orders per hour, last 48 hours' },
  DAY: { last: 30, label: 'Orders per day, last 30 days' },
};

export function StatsView() {
  const [interval, setSeriesInterval] = useState<StatsInterval>('DAY');
  const range = RANGES[interval];
  const loaded = useLoad(async () => dataOf(await query(STATS_QUERY, { interval, last: range.last })).stats, [interval]);
  return (
    <section aria-labelledby="stats-heading">
      <h2 id="stats-heading">Order book</h2>
      {loaded.state === 'loading' && <Loading what="statistics" />}
      {loaded.state === 'failed' && <Failed message={loaded.message} />}
      {loaded.state === 'done' && (
        <>
          <div class="windows">
            <Window title="All time" window={loaded.value.allTime} testId="all-time" />
            <Window title="Last 7 days" window={loaded.value.last7d} testId="last-7d" />
            <Window title="Last 24 hours" window={loaded.value.last24h} testId="last-24h" />
          </div>
          <p class="note">Computed {time(loaded.value.computedAt)}.</p>
          <div class="series-controls">
            <label for="series-interval">Series</label>
            <select
              id="series-interval"
              value={interval}
              onChange={(event) => setSeriesInterval((event.target as HTMLSelectElement).value as StatsInterval)}
            >
              <option value="DAY">{RANGES.DAY.label}</option>
              <option value="HOUR">{RANGES.HOUR.label}</option>
            </select>
          </div>
          <SeriesChart points={loaded.value.series} label={range.label} />
          <div class="tops">
            <BarChart
              title="Top chain pairs (orders, all time)"
              testId="top-pairs"
              bars={loaded.value.topChainPairs.map((pair) => ({
                label: `${pair.sourceChain} → ${pair.destChain}`,
                value: pair.orderCount,
              }))}
            />
            <BarChart
              title="Top source assets (orders, all time)"
              testId="top-assets"
              bars={loaded.value.topAssets.map((asset) => ({ label: `${asset.symbol} (${asset.asset})`, value: asset.orderCount }))}
            />
          </div>
        </>
      )}
    </section>
  );
}

function Window({ title, window, testId }: { title: string; window: StatsWindow; testId: string }) {
  return (
    <section class="window" aria-label={title} data-testid={testId}>
      <h3>{title}</h3>
      <dl class="facts">
        <dt>Orders</dt>
        <dd>{whole(window.totalOrders)}</dd>
        <dt>Completed</dt>
        <dd>{whole(window.completedOrders)}</dd>
        <dt>In progress</dt>
        <dd>{whole(window.inProgressOrders)}</dd>
        <dt>Cancelled</dt>
        <dd>{whole(window.cancelledOrders)}</dd>
        <dt>Volume</dt>
        <dd>{usd(window.totalVolumeUsd)}</dd>
        <dt>Users</dt>
        <dd>{whole(window.uniqueUsers)}</dd>
      </dl>
    </section>
  );
}
