import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('loadConfig', () => {
  it('has working defaults: embedded database, port 4000 on localhost', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 4000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      dataDir: './data',
      redisUrl: undefined,
      apiKeys: [],
      quoteTtlSeconds: 300,
      orderDeadlineSeconds: 3600,
      statsCacheSeconds: 120,
    });
  });

  it('reports every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', QUOTE_TTL_SECONDS: '-5', LOG_LEVEL: 'loud' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ['PORT', 'DATABASE_URL', 'QUOTE_TTL_SECONDS', 'LOG_LEVEL']) expect(message).toContain(name);
  });

  it('holds a quote lifetime to a day, which a quote id carries', () => {
    expect(loadConfig({ QUOTE_TTL_SECONDS: '86400' }).quoteTtlSeconds).toBe(86_400);
    expect(() => loadConfig({ QUOTE_TTL_SECONDS: '86401' })).toThrow('at most 86400');
  });

  it('metrics on by default on the API port; METRICS=off, METRICS_PORT, and the OTLP endpoint checked', () => {
    expect(loadConfig({})).toMatchObject({ metrics: { enabled: true, port: undefined }, otlpEndpoint: undefined });
    expect(loadConfig({ METRICS: 'off', METRICS_PORT: '', OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toMatchObject({
      metrics: { enabled: false, port: undefined },
      otlpEndpoint: undefined,
    });
    expect(loadConfig({ METRICS_PORT: '9464', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toMatchObject({
      metrics: { enabled: true, port: 9464 },
      otlpEndpoint: 'http://127.0.0.1:4318',
    });
    expect(() => loadConfig({ METRICS: 'yes', METRICS_PORT: '70000', OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://x' })).toThrow(
      /METRICS: must be on or off[\s\S]*METRICS_PORT: must be a TCP port[\s\S]*OTEL_EXPORTER_OTLP_ENDPOINT: must be an http/,
    );
  });

  it('splits API keys and treats empty values as unset', () => {
    const config = loadConfig({ API_KEYS: ' a, b ,,', DATABASE_URL: '', REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(config.apiKeys).toEqual(['a', 'b']);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
  });

  it('caps active subscriptions by default, and refuses a cap that is not a positive integer', () => {
    expect(loadConfig({})).toMatchObject({ subscriptionsPerConnection: 100, subscriptionsPerInstance: 10_000 });
    expect(loadConfig({ SUBSCRIPTIONS_PER_CONNECTION: '5', SUBSCRIPTIONS_PER_INSTANCE: '50' })).toMatchObject({
      subscriptionsPerConnection: 5,
      subscriptionsPerInstance: 50,
    });
    expect(() => loadConfig({ SUBSCRIPTIONS_PER_CONNECTION: '0', SUBSCRIPTIONS_PER_INSTANCE: 'many' })).toThrow(
      /SUBSCRIPTIONS_PER_CONNECTION: must be positive\n {2}SUBSCRIPTIONS_PER_INSTANCE: must be an integer/,
    );
  });
});
