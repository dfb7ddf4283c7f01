import { isDriverAdapterError } from '@prisma/driver-adapter-utils';
import { Prisma } from '../generated/prisma/client.ts';

/**
 * A unique index, as each driver adapter names it: adapter-pg reports the index's name, the PGlite
 * adapter the indexed columns.
 */
export interface UniqueIndex {
  /** A pattern for an index of a partitioned table, which adapter-pg names by the partition's own index. */
  index: string | RegExp;
  fields: readonly string[];
}

type Constraint = { index: string } | { fields: string[] } | { foreignKey: object } | undefined;

function violatedConstraint(error: unknown): Constraint | null {
  if (isDriverAdapterError(error)) {
    return error.cause.kind === 'UniqueConstraintViolation' ? error.cause.constraint : null;
  }
  // Through Prisma Client, the same adapter error is P2002's meta.
  if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
    const cause = (error.meta?.driverAdapterError as { cause?: { kind?: string; constraint?: Constraint } } | undefined)?.cause;
    return cause?.kind === 'UniqueConstraintViolation' ? cause.constraint : null;
  }
  return null;
}

/** True when `error` is a unique violation of one of these indexes. */
export function violatesUnique(error: unknown, indexes: readonly UniqueIndex[]): boolean {
  const constraint = violatedConstraint(error);
  if (!constraint) return false;
  return indexes.some((unique) =>
    'index' in constraint
      ? typeof unique.index === 'string'
        ? constraint.index === unique.index
        : unique.index.test(constraint.index)
      : 'fields' in constraint && constraint.fields.join() === unique.fields.join(),
  );
}
