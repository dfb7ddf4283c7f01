/**
 * The peer: PostGraphile v4 (it runs on Node 20, as the service does) over the same database,
 * configured as its documentation recommends for production: no GraphiQL, no query log, no
 * watch mode, no default mutations (the bench only reads through it).
 *
 *   PORT=4200 DATABASE_URL=... tsx test/bench/postgraphile.ts
 */
import { createServer } from 'node:http';
import pg from 'pg';
import { postgraphile } from 'postgraphile';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const port = Number(process.env.PORT ?? 4200);

createServer(
  postgraphile(pool, 'public', {
    graphqlRoute: '/graphql',
    graphiql: false,
    disableQueryLog: true,
    watchPg: false,
    retryOnInitFail: false,
    dynamicJson: true,
    setofFunctionsContainNulls: false,
    ignoreRBAC: false,
    disableDefaultMutations: true,
    legacyRelations: 'omit',
    enableQueryBatching: false,
    extendedErrors: [],
    // orders and intents are partitioned by month (README, Deployment): read them through their parents.
    graphileBuildOptions: { pgUsePartitionedParent: true },
  }),
).listen(port, '127.0.0.1', () => console.log(`postgraphile listening on ${port}`));
