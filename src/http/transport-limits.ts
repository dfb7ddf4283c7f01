import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import { isOneOf } from './api-keys.ts';
import { ConnectionsPerIp } from './connections-per-ip.ts';
import { createRateLimiter, type RateLimiter } from './rate-limit.ts';
import { instanceSlots, type SubscriptionSlots } from './subscription-limits.ts';

/** One instance's limits, shared by its transports: HTTP (REST, GraphQL, SSE) and WebSocket. */
export interface TransportLimits {
  /** Undefined when no rate limit is configured. */
  rateLimiter: RateLimiter | undefined;
  trustProxy: boolean;
  subscriptions: SubscriptionSlots;
  subscriptionsPerConnection: number;
  /** Open WebSockets per client IP. */
  webSocketsPerIp: ConnectionsPerIp;
  /** Open SSE subscription streams per client IP (the same cap, counted apart). */
  sseStreamsPerIp: ConnectionsPerIp;
}

export function createTransportLimits(config: Config, redis?: Redis): TransportLimits {
  const verifiedKeys = [...config.apiKeys, config.watcherKey];
  return {
    rateLimiter: createRateLimiter({
      perKeyPerMinute: config.rateLimitPerKey,
      perIpPerMinute: config.rateLimitPerIp,
      isVerifiedKey: (token) => isOneOf(token, verifiedKeys),
      redis,
    }),
    trustProxy: config.trustProxy,
    subscriptions: instanceSlots(config.subscriptionsPerInstance),
    subscriptionsPerConnection: config.subscriptionsPerConnection,
    webSocketsPerIp: new ConnectionsPerIp(config.wsMaxConnectionsPerIp),
    sseStreamsPerIp: new ConnectionsPerIp(config.wsMaxConnectionsPerIp, 'open SSE subscriptions'),
  };
}
