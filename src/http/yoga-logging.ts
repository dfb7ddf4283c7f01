import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { DomainError } from '../domain/errors.ts';

/**
 * Yoga's own log calls. It logs every error the masking below replaced, at "error"; but the masking
 * logs what is internal itself, and a client's mistake is no error of ours: those are logged at info,
 * with the client's text in a field of its own, never in the message.
 */
export function yogaLogging(logger: Logger) {
  const text = (args: unknown[]) => args.map(String).join(' ');
  return {
    debug: (...args: unknown[]) => logger.debug(text(args)),
    info: (...args: unknown[]) => logger.info(text(args)),
    warn: (...args: unknown[]) => logger.warn(text(args)),
    error: (...args: unknown[]) => {
      const [first] = args;
      const original = first instanceof GraphQLError ? first.originalError : first;
      if (original instanceof DomainError && original.code !== 'UNAVAILABLE') {
        logger.info({ code: original.code, error: original.message }, 'client error');
      } else {
        logger.debug({ err: first }, 'graphql error (logged where it was masked)');
      }
    },
  };
}
