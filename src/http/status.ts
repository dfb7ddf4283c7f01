import type { ErrorCode } from '../domain/errors.ts';

/** The HTTP status of each error code, as the REST contract gives it. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
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
  // Only ever inside a subscription stream (src/http/shared-subscriptions.ts), never a response's status.
  SLOW_CONSUMER: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
};
