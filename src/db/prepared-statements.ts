import { createHash } from 'node:crypto';

/**
 * Names statements so that each pooled connection prepares them once and reuses them (pg keeps the
 * prepared statements of each connection). PostgreSQL then plans a statement once per connection, or a
 * few times, and switches to a generic plan: that matters most on the partitioned orders and intents,
 * where planning a page over every month costs more than running it (README, Deployment: Data that grows).
 *
 * The first `limit` distinct statement texts get a name; any further ones run unnamed, so text that
 * varies (IN lists of many lengths) cannot fill the connections with prepared statements.
 * Behind PgBouncer in transaction mode, prepared statements break unless it is 1.21 or later with
 * max_prepared_statements above 0: DATABASE_PREPARED_STATEMENTS=off (README, Configuration).
 */
export function statementNamer(limit = 500): (query: { sql: string }) => string {
  const names = new Map<string, string>();
  return (query) => {
    let name = names.get(query.sql);
    if (name === undefined && names.size < limit) {
      name = `s_${createHash('sha1').update(query.sql).digest('hex').slice(0, 24)}`;
      names.set(query.sql, name);
    }
    // Unnamed when undefined: pg sends an unnamed statement, planned each time.
    return name as string;
  };
}
