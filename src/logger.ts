import pino, { type Logger } from 'pino';
import { requestContext } from './http/request-context.ts';
import { activeTraceIds } from './tracing.ts';

/** Structured JSON logs. Credentials and secrets are redacted wherever they appear in a log object. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      // Every line written while serving a request carries its id, and with tracing on its trace and span ids.
      // A copy: pino merges each line's own fields into the object the mixin returns.
      mixin: () => ({ ...requestContext.getStore(), ...activeTraceIds() }),
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'commitment', '*.commitment', 'secret', '*.secret'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
