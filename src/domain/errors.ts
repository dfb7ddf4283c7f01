/**
 * Domain errors: the only errors whose message reaches a client. Everything else is masked as an
 * internal error. Each code maps to one HTTP status (CONTRACT 2) and is the GraphQL `extensions.code`.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  QUOTE_CONSUMED: 409,
  CONFLICT: 409,
  QUOTE_EXPIRED: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  QUOTE_MISMATCH: 422,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  TOO_MANY_SUBSCRIPTIONS: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }

  get httpStatus(): number {
    return ERROR_STATUS[this.code];
  }
}

export const badRequest = (message: string) => new DomainError('BAD_REQUEST', message);
export const notFound = (message: string) => new DomainError('NOT_FOUND', message);
export const unprocessable = (message: string) => new DomainError('UNPROCESSABLE', message);
export const conflict = (message: string) => new DomainError('CONFLICT', message);
