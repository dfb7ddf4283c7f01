import { AsyncLocalStorage } from 'node:async_hooks';

/** The request being served, for log lines written anywhere below it (pino's mixin reads it). */
export const requestContext = new AsyncLocalStorage<{ reqId: string }>();
