/**
 * The errors a client may see, one class per code: the only errors whose message reaches a client
 * (everything else is masked as an internal error). The code is GraphQL's `extensions.code`; the
 * transports map it to an HTTP status (src/http/status.ts). Nothing here knows HTTP.
 */
export abstract class DomainError extends Error {
  override readonly name = 'DomainError';
  abstract readonly code: ErrorCode;
}

/** Input that breaks a rule: the message names the field and the rule. */
export class BadRequestError extends DomainError {
  readonly code = 'BAD_REQUEST';
}

/** A write or an ingestion without the key it needs. */
export class UnauthenticatedError extends DomainError {
  readonly code = 'UNAUTHENTICATED';
}

export class NotFoundError extends DomainError {
  readonly code = 'NOT_FOUND';
}

export class MethodNotAllowedError extends DomainError {
  readonly code = 'METHOD_NOT_ALLOWED';
}

/** The quote was consumed by a different order request. */
export class QuoteConsumedError extends DomainError {
  readonly code = 'QUOTE_CONSUMED';
}

/** A state no rule allows from here: a reused commitment, an escrow event no chain could produce. */
export class ConflictError extends DomainError {
  readonly code = 'CONFLICT';
}

export class QuoteExpiredError extends DomainError {
  readonly code = 'QUOTE_EXPIRED';
}

export class PayloadTooLargeError extends DomainError {
  readonly code = 'PAYLOAD_TOO_LARGE';
}

export class UnsupportedMediaTypeError extends DomainError {
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
}

/** An order request that does not match its quote. */
export class QuoteMismatchError extends DomainError {
  readonly code = 'QUOTE_MISMATCH';
}

/** Well-formed, but the registry refuses it: an unlisted asset, a pair across networks, an amount out of range. */
export class UnprocessableError extends DomainError {
  readonly code = 'UNPROCESSABLE';
}

export class RateLimitedError extends DomainError {
  readonly code = 'RATE_LIMITED';
}

/** Past the cap of active subscriptions, per connection or per instance. */
export class TooManySubscriptionsError extends DomainError {
  readonly code = 'TOO_MANY_SUBSCRIPTIONS';
}

/** A dependency (the database) cannot be reached; the client should retry. */
export class UnavailableError extends DomainError {
  readonly code = 'UNAVAILABLE';
}

export const ERROR_CODES = [
  'BAD_REQUEST',
  'UNAUTHENTICATED',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'QUOTE_CONSUMED',
  'CONFLICT',
  'QUOTE_EXPIRED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'QUOTE_MISMATCH',
  'UNPROCESSABLE',
  'RATE_LIMITED',
  'TOO_MANY_SUBSCRIPTIONS',
  'SLOW_CONSUMER',
  'INTERNAL',
  'UNAVAILABLE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

// Shorthands for the codes most rules throw.
export const badRequest = (message: string) => new BadRequestError(message);
export const notFound = (message: string) => new NotFoundError(message);
