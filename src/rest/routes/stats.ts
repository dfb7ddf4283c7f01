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
];
