import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { StatsPoint } from '../documents.ts';
import { time } from './format.ts';

const HEIGHT = 260;

/** Orders per bucket (all, completed, cancelled) as lines, drawn by uPlot; the same figures as a table below. */
export function SeriesChart({ points, label }: { points: StatsPoint[]; label: string }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = holder.current;
    if (!element) return;
    const data: uPlot.AlignedData = [
      points.map((point) => Date.parse(point.start) / 1000),
      points.map((point) => point.totalOrders),
      points.map((point) => point.completedOrders),
      points.map((point) => point.cancelledOrders),
    ];
    const chart = new uPlot(
      {
        width: Math.max(280, element.clientWidth),
        height: HEIGHT,
        // Buckets are UTC hours and days: label them in UTC, whatever the reader's zone.
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        // Orders come whole: no tick between two counts.
        axes: [{}, { values: (_u, ticks) => ticks.map((tick) => (Number.isInteger(tick) ? String(tick) : '')) }],
        series: [
          { label: 'Bucket start (UTC)' },
          { label: 'All orders', stroke: '#1d4ed8', width: 2 },
          { label: 'Completed', stroke: '#15803d', width: 2 },
          { label: 'Cancelled', stroke: '#b91c1c', width: 2 },
        ],
      },
      data,
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(280, element.clientWidth), height: HEIGHT }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [points]);
  return (
    <figure class="chart">
      <div ref={holder} role="img" aria-label={`${label}: orders per bucket, line chart`} data-testid="series-chart" />
      <figcaption>{label}</figcaption>
      <details>
        <summary>The figures as a table</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Start</th>
              <th scope="col">All</th>
              <th scope="col">Completed</th>
              <th scope="col">Cancelled</th>
              <th scope="col">Volume (USD)</th>
            </tr>
          </thead>
          <tbody>
            {points.map((point) => (
              <tr key={point.start}>
                <td>{time(point.start)}</td>
                <td>{point.totalOrders}</td>
                <td>{point.completedOrders}</td>
                <td>{point.cancelledOrders}</td>
                <td>{point.volumeUsd.toFixed(2)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
