import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { pgTarget } from '../../src/db/database.ts';
import { applyMigrations } from '../../src/db/migrate.ts';

// `npm run db:migrate`: applies the committed migrations to DATABASE_URL (the embedded database migrates itself).
const config = loadConfig(process.env);
if (!config.databaseUrl) {
  console.log('DATABASE_URL is unset: the embedded database migrates itself on start; nothing to do.');
  process.exit(0);
}
const client = new pg.Client({ connectionString: config.databaseUrl });
await client.connect();
try {
  const applied = await applyMigrations(pgTarget(client));
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
} finally {
  await client.end();
}
