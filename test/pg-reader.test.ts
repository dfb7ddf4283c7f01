import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { parseTimestamptz } from '../src/db/pg-reader.ts';

/**
 * The row store reads times on PostgreSQL with its own parser (src/db/pg-reader.ts): it must give the
 * instant pg's parser gives for every text PostgreSQL can print, in any session time zone.
 */
describe('parseTimestamptz', () => {
  const pgParse = pg.types.getTypeParser(1184, 'text') as (text: string) => Date;
  it('reads whole-second times in UTC and in whole-hour zones as pg does', () => {
    for (const text of [
      '2026-11-23 10:00:00+00',
      '2026-01-01 00:00:00+00',
      '2024-02-29 23:59:59+00',
      '2026-11-23 10:00:00+05',
      '2026-11-23 01:30:07-08',
      '1999-12-31 23:59:59+14',
    ]) {
      expect(parseTimestamptz(text).toISOString(), text).toBe(pgParse(text).toISOString());
    }
    expect(parseTimestamptz('2026-11-23 10:00:00-03').toISOString()).toBe('2026-11-23T13:00:00.000Z');
  });

  it('hands every other form to pg: fractions, zones with minutes, early years, BC, infinity', () => {
    for (const text of [
      '2026-11-23 10:00:00.123+00',
      '2026-11-23 10:00:00+05:30',
      '0099-01-01 00:00:00+00',
      '0044-03-15 12:00:00+00 BC',
      'infinity',
    ]) {
      expect(String(parseTimestamptz(text)), text).toBe(String(pgParse(text)));
    }
  });
});
