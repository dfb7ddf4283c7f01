import { describe, expect, it } from 'vitest';
import { runPrefix, testDbPrefix } from './support/postgres-setup.ts';

/** TEST_DB_PREFIX namespaces every PostgreSQL database a run creates. */
describe('test database names', () => {
  it('start with TEST_DB_PREFIX, or obg without it, then differ per run', () => {
    expect(runPrefix({ TEST_DB_PREFIX: 'ci_job_7' })).toMatch(/^ci_job_7_[0-9a-z]+_[0-9a-f]{6}$/);
    expect(runPrefix({})).toMatch(/^obg_[0-9a-z]+_[0-9a-f]{6}$/);
    expect(runPrefix({ TEST_DB_PREFIX: 'x' })).not.toBe(runPrefix({ TEST_DB_PREFIX: 'x' }));
  });

  it('refuses a prefix PostgreSQL would fold or could not hold unquoted', () => {
    for (const bad of ['CI', '7up', 'a-b', 'a;drop', 'x'.repeat(31)]) {
      expect(() => testDbPrefix({ TEST_DB_PREFIX: bad })).toThrow('TEST_DB_PREFIX must be 1 to 30 characters');
    }
  });
});
