/**
 * CORS: any origin by default, or only those in CORS_ORIGINS; never with credentials, since callers
 * authenticate with a bearer key, not cookies (an origin reflected with credentials would let any
 * site act with a visitor's cookies). README, Hardening.
 */
export function corsPolicy(allowed: string[] | undefined) {
  const policy = {
    credentials: false,
    methods: ['GET', 'POST', 'DELETE'],
    allowedHeaders: ['authorization', 'content-type', 'accept', 'x-request-id', 'x-graphql-yoga-csrf'],
    exposedHeaders: ['x-request-id', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'],
    maxAge: 600,
  };
  if (!allowed) return { ...policy, origin: '*' };
  return (request: Request) => {
    const origin = request.headers.get('origin');
    return origin !== null && allowed.includes(origin) ? { ...policy, origin: [origin] } : false;
  };
}
