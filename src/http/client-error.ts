import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { DomainError, ERROR_CODES, type ErrorCode } from '../domain/errors.ts';

/** What a client is told: a code (GraphQL `extensions.code`, REST status) and a message. */
export interface ClientError {
  code: ErrorCode;
  message: string;
}

/**
 * A client error that crossed GraphQL: masking keeps only its code and message (the REST layer
 * reads its documents' errors back this way).
 */
export class CodedError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const isErrorCode = (value: unknown): value is ErrorCode => (ERROR_CODES as readonly unknown[]).includes(value);

export const INTERNAL_MESSAGE = 'internal server error';
export const UNAVAILABLE_MESSAGE = 'service unavailable: the database is unreachable, retry shortly';

/**
 * Any error as the client sees it, for GraphQL and REST alike: our own errors as they are, an
 * unreachable database as UNAVAILABLE, anything else INTERNAL with no detail (the caller logs it).
 */
export function toClientError(error: unknown): ClientError {
  if (error instanceof DomainError || error instanceof CodedError) return { code: error.code, message: error.message };
  if (isDatabaseUnavailable(error)) return { code: 'UNAVAILABLE', message: UNAVAILABLE_MESSAGE };
  return { code: 'INTERNAL', message: INTERNAL_MESSAGE };
}
