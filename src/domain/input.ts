import { badRequest } from './errors.ts';

/**
 * Small checks for untrusted JSON, each failing with a message that names the field and the rule.
 * Inputs arrive as `unknown` from both GraphQL and REST, so these are the only gate.
 */

export type JsonObject = Record<string, unknown>;

export function requireObject(value: unknown, field: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest(`${field} must be an object`);
  }
  return value as JsonObject;
}

// Control characters (NUL above all: PostgreSQL text cannot hold it) have no place in an identifier.
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

export function requireString(value: unknown, field: string, maxLength = 256): string {
  if (value === undefined || value === null) throw badRequest(`${field} is required`);
  if (typeof value !== 'string') throw badRequest(`${field} must be a string`);
  if (value.trim() === '') throw badRequest(`${field} must not be empty`);
  if (value.length > maxLength) throw badRequest(`${field} must be at most ${maxLength} characters`);
  if (CONTROL_CHARS.test(value)) throw badRequest(`${field} must not contain control characters`);
  return value;
}

const HASH_32_BYTES = /^(?:0x)?([0-9a-fA-F]{64})$/;

/** 32-byte hex in any case, with or without 0x; returned lowercase without the prefix. */
export function requireHex32(value: unknown, field: string): string {
  const text = requireString(value, field, 66);
  const match = HASH_32_BYTES.exec(text);
  if (!match?.[1]) throw badRequest(`${field} must be 32 bytes of hex (64 hex characters, optional 0x prefix)`);
  return match[1].toLowerCase();
}

const ASSET_ID = /^([a-z0-9_-]+):([a-z0-9_.-]+)$/;

/** An asset id `chain:token`, case-insensitive; returned lowercase. */
export function requireAssetId(value: unknown, field: string): string {
  const text = requireString(value, field, 128).toLowerCase();
  if (!ASSET_ID.test(text)) throw badRequest(`${field} must be an asset id of the form chain:token`);
  return text;
}

/** Whole seconds, as every timestamp of the API is. */
export function toSeconds(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

export function requireTimestamp(value: unknown, field: string): Date {
  const text = requireString(value, field, 40);
  const date = new Date(text);
  if (!TIMESTAMP.test(text) || Number.isNaN(date.getTime())) {
    throw badRequest(`${field} must be an ISO 8601 timestamp such as 2026-01-31T12:00:00Z`);
  }
  return date;
}

/** Positive integer from a number or a decimal string (query strings are strings). */
export function requireIntInRange(value: unknown, field: string, min: number, max: number): number {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^\d{1,9}$/.test(text)) {
    throw badRequest(rangeMessage(field, min, max));
  }
  const n = Number(text);
  if (n < min || n > max) throw badRequest(rangeMessage(field, min, max));
  return n;
}

const rangeMessage = (field: string, min: number, max: number) =>
  max === Number.MAX_SAFE_INTEGER
    ? `${field} must be an integer >= ${min}`
    : `${field} must be an integer from ${min} to ${max}`;
