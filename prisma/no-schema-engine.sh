#!/bin/sh
# Stand-in for Prisma's native schema engine, which these machines cannot download.
# `prisma generate` only checks that the file exists; anything that really needs the engine fails loudly.
# Migrations are applied by src/db/migrate.ts and created through the WASM engine (prisma/scripts).
echo "native schema engine not available: use npm run db:migrate / db:migration:create" >&2
exit 1
