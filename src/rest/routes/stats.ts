import { parseSeriesRequest } from '../../domain/stats-series.ts';
import type { Route } from '../route.ts';

export const statsRoutes: Route[] = [
  {
    method: 'GET',
    path: '/stats',
    doc: {
      operationId: 'getStats',
      summary: 'Order book statistics',
      description: 'Cached server-side for STATS_CACHE_SECONDS; Cache-Control: max-age says what is left.',
      tag: 'Statistics',
      document: 'stats',
      result: ['stats'],
      responses: { 200: 'Statistics over all time, the last 24 hours and the last 7 days.' },
      errors: [],
    },
    async handle(_input, run) {
      const { data, cacheMaxAgeSecs } = await run('stats', {});
      return {
        status: 200,
        result: data.stats,
        headers: { 'cache-control': `public, max-age=${cacheMaxAgeSecs ?? 0}` },
      };
    },
  },
  {
    method: 'GET',
    path: '/stats/series',
    doc: {
      operationId: 'getStatsSeries',
      summary: 'Order book statistics over time',
      description:
        'Points oldest first, one per UTC hour or day, the last holding now. Cached server-side like GET /stats; Cache-Control: max-age says what is left.',
      tag: 'Statistics',
      document: 'statsSeries',
      result: ['stats', 'series'],
      responses: { 200: 'One point per bucket, zeros where no order was created.' },
      errors: [400],
    },
    async handle(input, run) {
      const q = input.query;
      // Checked here first, so the message names the query parameter and a bad interval is not a GraphQL enum error.
      const { interval, last } = parseSeriesRequest({ interval: q.get('interval') ?? undefined, last: q.get('last') ?? undefined });
      const { data, cacheMaxAgeSecs } = await run('statsSeries', { interval: interval.toUpperCase(), last });
      return {
        status: 200,
        result: (data.stats as { series: unknown }).series,
        headers: { 'cache-control': `public, max-age=${cacheMaxAgeSecs ?? 0}` },
      };
    },
  },
];
