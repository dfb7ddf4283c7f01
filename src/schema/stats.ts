import { computeStats, type AssetStat, type ChainPairStat, type Stats, type StatsWindow } from '../domain/stats.ts';
import { computeSeries, MAX_POINTS, parseSeriesRequest, type StatsPoint } from '../domain/stats-series.ts';
import { builder } from './builder.ts';
import { selects } from './selection.ts';

const StatsIntervalEnum = builder.enumType('StatsInterval', {
  description: 'The width of a stats series bucket, in UTC: REST spells it in lowercase.',
  values: {
    HOUR: { value: 'hour', description: `An hour; up to ${MAX_POINTS.hour} of them (a week).` },
    DAY: { value: 'day', description: `A UTC day; up to ${MAX_POINTS.day} of them (a year).` },
  } as const,
});

const StatsPointRef = builder.objectRef<StatsPoint>('StatsPoint').implement({
  description: 'The orders created in one bucket, [start, start + interval); counted as the all-time figures count them.',
  fields: (t) => ({
    start: t.expose('start', { description: "The bucket's first instant.", type: 'DateTime' }),
    totalOrders: t.exposeInt('totalOrders', { description: 'Orders created in the bucket.' }),
    completedOrders: t.exposeInt('completedOrders', { description: 'Of those, completed or destination_claimed now.' }),
    cancelledOrders: t.exposeInt('cancelledOrders', { description: 'Of those, cancelled or expired now.' }),
    volumeUsd: t.exposeFloat('volumeUsd', { description: 'Their source amounts in USD at the quoted prices, rounded to cents.' }),
  }),
});

const Window = builder.objectRef<StatsWindow>('StatsWindow').implement({
  description: 'Orders created in the window; total = completed + inProgress + cancelled.',
  fields: (t) => ({
    totalOrders: t.exposeInt('totalOrders', { description: 'Orders created in the window.' }),
    completedOrders: t.exposeInt('completedOrders', { description: 'Of those, completed or destination_claimed.' }),
    inProgressOrders: t.exposeInt('inProgressOrders', {
      description: 'Of those, pending, source_created, destination_created or refunding.',
    }),
    cancelledOrders: t.exposeInt('cancelledOrders', { description: 'Of those, cancelled or expired.' }),
    uniqueUsers: t.exposeInt('uniqueUsers', { description: 'Distinct user ids among them.' }),
    totalVolumeUsd: t.exposeFloat('totalVolumeUsd', { description: 'Rounded to cents.' }),
    avgCompletionTimeSecs: t.exposeFloat('avgCompletionTimeSecs', {
      description:
        'Mean seconds from creation to the destination claim, over completed orders whose destination claim was seen; 2 decimals.',
    }),
  }),
});

const ChainPair = builder.objectRef<ChainPairStat>('ChainPairStat').implement({
  description: 'A source -> destination chain pair and the orders made between them, all time.',
  fields: (t) => ({
    sourceChain: t.exposeString('sourceChain', { description: 'Source chain id.' }),
    destChain: t.exposeString('destChain', { description: 'Destination chain id.' }),
    orderCount: t.exposeInt('orderCount', { description: 'Orders from the source to the destination chain.' }),
    volumeUsd: t.exposeFloat('volumeUsd', { description: 'Their source amounts in USD at the quoted prices, rounded to cents.' }),
  }),
});

const AssetStatRef = builder.objectRef<AssetStat>('AssetStat').implement({
  description: 'A source asset and the orders that sold it, all time.',
  fields: (t) => ({
    asset: t.exposeString('asset', { description: 'Asset id, chain:token.' }),
    symbol: t.exposeString('symbol', { description: "The asset's ticker." }),
    orderCount: t.exposeInt('orderCount', { description: 'Orders with this source asset.' }),
    volumeUsd: t.exposeFloat('volumeUsd', { description: 'Their source amounts in USD at the quoted prices, rounded to cents.' }),
  }),
});

const StatsRef = builder.objectRef<Stats>('Stats').implement({
  description:
    'Aggregate statistics, cached server-side for STATS_CACHE_SECONDS (configuration); `GET /stats` says what is left of it in Cache-Control: max-age.',
  fields: (t) => ({
    allTime: t.expose('allTime', { description: 'Every order ever created.', type: Window }),
    last24h: t.expose('last24h', { description: 'Orders created in the last 24 hours.', type: Window }),
    last7d: t.expose('last7d', { description: 'Orders created in the last 7 days.', type: Window }),
    topChainPairs: t.expose('topChainPairs', { description: 'The chain pairs with the most orders, most first.', type: [ChainPair] }),
    topAssets: t.expose('topAssets', { type: [AssetStatRef], description: 'The source assets with the most orders, most first.' }),
    series: t.field({
      description:
        'Orders per hour or per UTC day, oldest first, the last bucket holding now; every bucket present (zeros where none). From the rollups, cached like the rest (`GET /stats/series`).',
      type: [StatsPointRef],
      args: {
        interval: t.arg({ type: StatsIntervalEnum, required: true, description: 'Bucket width.' }),
        last: t.arg.int({
          required: true,
          description: `How many buckets: 1 to ${MAX_POINTS.hour} hours, or 1 to ${MAX_POINTS.day} days.`,
        }),
      },
      resolve: async (_stats, args, ctx) => {
        const request = parseSeriesRequest(args);
        const now = ctx.now();
        const cached = await ctx.statsCache.series(`${request.interval}:${request.last}`, () => computeSeries(ctx.stats, request, now));
        ctx.cacheMaxAgeSecs = Math.min(ctx.cacheMaxAgeSecs ?? cached.remainingSecs, cached.remainingSecs);
        return cached.points;
      },
    }),
    computedAt: t.expose('computedAt', {
      description: 'When these figures were computed (the cache holds them until it expires).',
      type: 'DateTime',
    }),
  }),
});

const AGGREGATE_FIELDS = ['allTime', 'last24h', 'last7d', 'topChainPairs', 'topAssets', 'computedAt'];
/** Stands for the aggregates when only the series is asked for; none of its fields is ever read. */
const SERIES_ONLY = {} as Stats;

builder.queryFields((t) => ({
  stats: t.field({
    description: 'Order book statistics (`GET /stats`), from the cache when it is fresh.',
    type: StatsRef,
    resolve: async (_root, _args, ctx, info) => {
      // The series alone (GET /stats/series) reads none of the aggregates: they are not computed for it.
      if (!selects(info, [], AGGREGATE_FIELDS)) return SERIES_ONLY;
      // Statistics tolerate lag (they are cached for minutes anyway): a replica computes them when one is usable.
      const cached = await ctx.statsCache.get(() => computeStats(ctx.stats, ctx.registry, ctx.now()));
      ctx.cacheMaxAgeSecs = cached.remainingSecs;
      return cached.stats;
    },
  }),
}));
