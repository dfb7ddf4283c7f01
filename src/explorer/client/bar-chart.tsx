import { whole } from './format.ts';

export interface Bar {
  label: string;
  value: number;
}

const ROW = 28;
const LABEL_WIDTH = 220;
const BAR_WIDTH = 320;

/** A horizontal bar per entry, in SVG; the labels and figures are text a screen reader reads in order. */
export function BarChart({ title, bars, testId }: { title: string; bars: Bar[]; testId: string }) {
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  const titleId = `${testId}-title`;
  return (
    <figure class="chart">
      <figcaption id={titleId}>{title}</figcaption>
      {bars.length === 0 ? (
        <p class="note">No orders yet.</p>
      ) : (
        <svg
          role="img"
          aria-labelledby={titleId}
          data-testid={testId}
          viewBox={`0 0 ${LABEL_WIDTH + BAR_WIDTH + 80} ${bars.length * ROW}`}
          width="100%"
          preserveAspectRatio="xMinYMin meet"
        >
          <title>{title}</title>
          {bars.map((bar, index) => {
            const y = index * ROW;
            const width = Math.max(2, (bar.value / max) * BAR_WIDTH);
            return (
              <g key={bar.label}>
                <title>{`${bar.label}: ${whole(bar.value)} orders`}</title>
                <text x={LABEL_WIDTH - 8} y={y + ROW / 2} text-anchor="end" dominant-baseline="middle" class="bar-label">
                  {bar.label}
                </text>
                <rect x={LABEL_WIDTH} y={y + 4} width={width} height={ROW - 8} class="bar" />
                <text x={LABEL_WIDTH + width + 6} y={y + ROW / 2} dominant-baseline="middle" class="bar-value">
                  {whole(bar.value)}
                </text>
              </g>
            );
          })}
        </svg>
      )}
    </figure>
  );
}
