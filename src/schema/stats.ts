import { computeStats, type AssetStat, type ChainPairStat, type Stats, type StatsWindow } from '../domain/stats.ts';
import { builder } from './builder.ts';

const Window = builder.objectRef<StatsWindow>('StatsWindow').implement({
  description: 'Orders created in the window; total = completed + inProgress + cancelled.',
  fields: (t) => ({
    totalOrders: t.exposeInt('totalOrders'),
    completedOrders: t.exposeInt('completedOrders'),
    inProgressOrders: t.exposeInt('inProgressOrders'),
    cancelledOrders: t.exposeInt('cancelledOrders'),
    uniqueUsers: t.exposeInt('uniqueUsers'),
    totalVolumeUsd: t.exposeFloat('totalVolumeUsd', { description: 'Rounded to cents.' }),
    avgCompletionTimeSecs: t.exposeFloat('avgCompletionTimeSecs'),
  }),
});

const ChainPair = builder.objectRef<ChainPairStat>('ChainPairStat').implement({
  fields: (t) => ({
    sourceChain: t.exposeString('sourceChain'),
    destChain: t.exposeString('destChain'),
    orderCount: t.exposeInt('orderCount'),
    volumeUsd: t.exposeFloat('volumeUsd'),
  }),
});

const AssetStatRef = builder.objectRef<AssetStat>('AssetStat').implement({
  fields: (t) => ({
    asset: t.exposeString('asset'),
    symbol: t.exposeString('symbol'),
    orderCount: t.exposeInt('orderCount'),
    volumeUsd: t.exposeFloat('volumeUsd'),
  }),
});

const StatsRef = builder.objectRef<Stats>('Stats').implement({
  description: 'Aggregate statistics, cached server-side for two minutes.',
  fields: (t) => ({
    allTime: t.expose('allTime', { type: Window }),
    last24h: t.expose('last24h', { type: Window }),
    last7d: t.expose('last7d', { type: Window }),
    topChainPairs: t.expose('topChainPairs', { type: [ChainPair] }),
    topAssets: t.expose('topAssets', { type: [AssetStatRef], description: 'By source asset.' }),
    computedAt: t.expose('computedAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  stats: t.field({
    type: StatsRef,
    resolve: async (_root, _args, ctx) => {
      const cached = await ctx.statsCache.get(() => computeStats(ctx.prisma, ctx.registry, ctx.now()));
      ctx.cacheMaxAgeSecs = cached.remainingSecs;
      return cached.stats;
    },
  }),
}));
