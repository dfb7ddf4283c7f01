import { defineConfig } from 'prisma/config';

// Prisma 7 reads no .env and env() throws when a variable is unset, even for `generate`,
// so the URL is read directly. Migrations are applied by our own runner (src/db/migrate.ts).
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost/unused' },
});
