-- Quotes are signed when they are made and stored only by the order that consumes them
-- (src/domain/signed-quotes.ts). Every instance on this database signs and checks with this one key.
CREATE TABLE "quote_signing_keys" (
    "id" INTEGER NOT NULL,
    "secret" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(0) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "quote_signing_keys_pkey" PRIMARY KEY ("id")
);

-- 32 bytes from two version-4 UUIDs (244 random bits from the server's strong random source), hashed: made
-- here, once, so no two instances can race to make different keys.
INSERT INTO "quote_signing_keys" ("id", "secret")
VALUES (1, encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')), 'hex'));
