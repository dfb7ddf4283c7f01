-- A quote is consumed by one order at most: the unique index needs only the consumed quotes. Holding the
-- unconsumed ones too cost every new quote an index entry, and let the planner read "consumed_by IS NULL"
-- from this index, which for the create statement of several orders (src/db/row-store.ts) can mean
-- hashing every unconsumed quote instead of looking each quote up by its id. Without NULLs in it, the
-- index cannot serve that condition, so the quotes are found by their primary key, statistics or not.
--
-- The new index is built before the old one goes, as for the intents' tx-hash indexes (README, Deployment:
-- Data that grows).
CREATE UNIQUE INDEX "quotes_consumed_by_set_key" ON "quotes"("consumed_by") WHERE "consumed_by" IS NOT NULL;
DROP INDEX "quotes_consumed_by_key";
-- The name Prisma's schema gives it.
ALTER INDEX "quotes_consumed_by_set_key" RENAME TO "quotes_consumed_by_key";
