import { z } from 'zod';
import { BadRequestError } from './errors.ts';

/**
 * The building blocks of every input schema, and the one place an input is turned into a typed
 * value or a 400. Each schema is written once, with camelCase keys; REST clients spell the same keys
 * in snake_case (src/rest/input.ts renames them). A message names the field as the client spelled
 * it, then the rule: `source.amount must be a positive integer string in base units`.
 */

/** How the client spelled the keys, so a message can name the field its way. */
export type KeySpelling = 'camelCase' | 'snake_case';

/** Messages carry the rule only; parseInput puts the field's name in front. A missing field is `is required`. */
export const missingOr = (rule: string) => (issue: { input?: unknown }) => (issue.input == null ? 'is required' : rule);

/** A JSON object; anything else (null, an array, a string) fails with one message. */
export function object<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.object(shape, { error: 'must be an object' });
}

// Control characters (NUL above all: PostgreSQL text cannot hold it) have no place in an identifier.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const NO_CONTROL_CHARS = /^[^\u0000-\u001f\u007f]*$/;

/**
 * A non-blank string without control characters, at most `maxLength` long. Each check stops the
 * parse (abort), so a value gets one message, the first rule it breaks.
 */
export function text(maxLength = 256) {
  return z
    .string({ error: missingOr('must be a string') })
    .regex(/\S/, { error: 'must not be empty', abort: true })
    .max(maxLength, { error: `must be at most ${maxLength} characters`, abort: true })
    .regex(NO_CONTROL_CHARS, { error: 'must not contain control characters', abort: true });
}

/**
 * Characters a user id may not hold (README, Hardening): controls (C0, DEL, C1 with U+0085), the invisible
 * ones (soft hyphen, zero-width, word joiners, BOM), bidirectional marks, embeddings, overrides and isolates,
 * line and paragraph separators, and U+FFFD (what a lone surrogate decodes to, so the two cannot alias).
 */
const NOT_IN_USER_IDS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\ufffd]/;

/**
 * A user id: text that looks like what it is and names one user. NFC-normalised, so one user is not two
 * byte sequences; never `.` or `..`, which no URL path segment can carry (URL parsing removes them, also
 * percent-encoded), so /orders/user/{user_id} could not name them.
 */
export const userId = text(128)
  // In a /u pattern a paired surrogate is one code point: only a lone one matches.
  .refine((value) => !/[\ud800-\udfff]/u.test(value), { error: 'must not contain unpaired surrogates', abort: true })
  .refine((value) => !NOT_IN_USER_IDS.test(value), {
    error: 'must not contain control, invisible or bidirectional formatting characters',
    abort: true,
  })
  .transform((value) => value.normalize('NFC'))
  .refine((value) => value !== '.' && value !== '..', { error: 'must not be . or .. (it must fit in one URL path segment)', abort: true });

/** 32-byte hex in any case, with or without 0x; lowercase without the prefix once parsed. */
export const hex32 = text(66)
  .regex(/^(?:0x)?[0-9a-fA-F]{64}$/, { error: 'must be 32 bytes of hex (64 hex characters, optional 0x prefix)', abort: true })
  .transform((value) => value.replace(/^0x/, '').toLowerCase());

/** An asset id `chain:token`, case-insensitive; lowercase once parsed. */
export const assetId = text(128)
  .regex(/^[a-zA-Z0-9_-]+:[a-zA-Z0-9_.-]+$/, { error: 'must be an asset id of the form chain:token', abort: true })
  .transform((value) => value.toLowerCase());

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/;
const TIMESTAMP_RULE = 'must be an ISO 8601 timestamp such as 2026-01-31T12:00:00Z';

/**
 * Every part within its range: JavaScript's Date rolls 2026-02-30 over to March and T24:00 to the next day,
 * where GraphQL's DateTime (and the client, surely) means no such time.
 */
function isCalendarTime(value: string): boolean {
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = TIMESTAMP.exec(value)!
    .slice(1)
    .map((part) => Number(part ?? 0));
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  return (
    month! >= 1 &&
    month! <= 12 &&
    day! >= 1 &&
    day! <= daysInMonth &&
    hour! <= 23 &&
    minute! <= 59 &&
    second! <= 59 &&
    offsetHours! <= 23 &&
    offsetMinutes! <= 59
  );
}

/** An ISO 8601 timestamp as text (REST, query strings) or as GraphQL's DateTime already made it. */
export const timestamp = z.union([
  z.date({ error: TIMESTAMP_RULE }),
  text(40)
    .regex(TIMESTAMP, { error: TIMESTAMP_RULE, abort: true })
    .refine((value) => isCalendarTime(value) && !Number.isNaN(new Date(value).getTime()), { error: TIMESTAMP_RULE, abort: true })
    .transform((value) => new Date(value)),
]);

/** Whole seconds, as every timestamp of the API is. */
export function toSeconds(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

/** A time as the API writes it in messages and payloads: `YYYY-MM-DDTHH:MM:SSZ`, whole seconds. */
export function isoSeconds(date: Date): string {
  return toSeconds(date)
    .toISOString()
    .replace(/\.000Z$/, 'Z');
}

/** An integer from min to max, from a number or a decimal string (query strings are strings). */
export function intInRange(min: number, max: number) {
  const rule = `must be an integer from ${min} to ${max}`;
  return z
    .union([z.number(), z.string()], { error: rule })
    .transform((value) => String(value))
    .refine((value) => /^\d{1,9}$/.test(value), { error: rule, abort: true })
    .transform((value) => Number(value))
    .refine((value) => value >= min && value <= max, { error: rule, abort: true });
}

/** The name a client gave the field at `path`: `source.amount`, `commitment_hash`; the root is `body`. */
function fieldName(path: readonly PropertyKey[], spelling: KeySpelling, root: string): string {
  if (path.length === 0) return root;
  return path
    .map((key, index) => {
      if (typeof key === 'number') return `[${key}]`;
      const name = spelling === 'snake_case' ? snakeCase(String(key)) : String(key);
      return index === 0 ? name : `.${name}`;
    })
    .join('')
    .replace(/\.\[/g, '[');
}

export function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** The first problem of a failed parse, as a message naming the field and the rule. */
function firstProblem(issues: readonly z.core.$ZodIssue[], spelling: KeySpelling, root: string, prefix: PropertyKey[] = []): string {
  const issue = issues[0]!;
  const path = [...prefix, ...issue.path];
  // A union (a timestamp given as text or as a Date) reports each way it failed: the last is the
  // way a client usually sends it.
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    return firstProblem(issue.errors[issue.errors.length - 1]!, spelling, root, path);
  }
  return `${fieldName(path, spelling, root)} ${issue.message}`;
}

/**
 * Parses one input with its schema: the typed value, or a 400 naming the first field that breaks a
 * rule. `root` names a value that is not inside an object (a query parameter).
 */
export function parseInput<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  spelling: KeySpelling = 'camelCase',
  root = 'body',
): z.output<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new BadRequestError(firstProblem(result.error.issues, spelling, root));
}

/** One value checked alone, named `field` in the message (path parameters, query parameters). */
export function parseField<Schema extends z.ZodType>(schema: Schema, value: unknown, field: string): z.output<Schema> {
  return parseInput(schema, value, 'camelCase', field);
}
