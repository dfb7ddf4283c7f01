import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError, type ErrorCode } from '../domain/errors.ts';
import type { ClientError } from './client-error.ts';
import { HTTP_STATUS } from './status.ts';

/**
 * The seed's envelope; every REST answer uses it, errors included, but /health, /relayer/health and the exports' bodies. `respond` is the Response
 * class to build it with: the REST plugin passes Yoga's (its fetchAPI), whose text body Yoga writes to the
 * socket in one call with its Content-Length; the platform's Response body is a stream, sent chunked.
 */
export function envelope(
  status: number,
  result: unknown,
  headers: Record<string, string> = {},
  respond: typeof Response = Response,
): Response {
  const ok = status < 400;
  return jsonResponse(status, JSON.stringify({ status: ok ? 'Success' : 'Error', result }), headers, respond);
}

/** A success envelope around a result that is JSON text already (a page PostgreSQL rendered: rendered-pages.ts). */
export function envelopeJson(
  status: number,
  json: string,
  headers: Record<string, string> = {},
  respond: typeof Response = Response,
): Response {
  return jsonResponse(status, `{"status":"Success","result":${json}}`, headers, respond);
}

function jsonResponse(status: number, body: string, headers: Record<string, string>, respond: typeof Response): Response {
  return new respond(body, { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
}

const errorCodes = new WeakMap<Response, ErrorCode>();

/** A client error in the envelope, with its code's status; UNAVAILABLE says when to retry. */
export function errorEnvelope(error: ClientError, headers: Record<string, string> = {}, respond: typeof Response = Response): Response {
  const retry: Record<string, string> = error.code === 'UNAVAILABLE' ? { 'retry-after': '5' } : {};
  const response = envelope(HTTP_STATUS[error.code], error.message, { ...retry, ...headers }, respond);
  errorCodes.set(response, error.code);
  return response;
}

/** The error code an error envelope was made from (the metrics count errors by code). */
export function errorCodeOf(response: Response): ErrorCode | undefined {
  return errorCodes.get(response);
}

export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Reads a JSON body with the checks every write endpoint shares: media type (415), size (413, also
 * for chunked bodies without Content-Length), and syntax (400). `emptyIsNone`: for a route whose body is
 * optional, an empty one (many clients send Content-Type on every request) is no body, undefined.
 */
export async function readJsonBody(request: Request, options: { emptyIsNone?: boolean } = {}): Promise<unknown> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new UnsupportedMediaTypeError('Content-Type must be application/json');
  }
  const length = request.headers.get('content-length');
  const declared = Number(length ?? '0');
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  // With a Content-Length Node's parser delivers no more than it says: read it whole (no web stream to
  // pull chunk by chunk). Without one (chunked), count while reading.
  const text = await readBodyText(request, length);
  if (options.emptyIsNone && text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BadRequestError('body must be valid JSON');
  }
}

/**
 * The body as text. A read that fails is the client's connection ending mid-body (an abort, a reset):
 * a client error, answered 400 and logged as one, not an internal failure that would set off alerts.
 */
async function readBodyText(request: Request, length: string | null): Promise<string> {
  try {
    return length !== null && /^\d+$/.test(length) && request.body
      ? decodeLimited(new Uint8Array(await request.arrayBuffer()))
      : await readLimited(request, MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof PayloadTooLargeError) throw error;
    throw new BadRequestError('request body incomplete: the connection ended before the body did');
  }
}

const tooLarge = () => new PayloadTooLargeError(`body must be at most ${MAX_BODY_BYTES} bytes`);

export async function readLimited(request: Request, limit: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks));
}

/** A body read whole, held to the same limit (a request made in-process can say any length). */
function decodeLimited(bytes: Uint8Array): string {
  if (bytes.byteLength > MAX_BODY_BYTES) throw tooLarge();
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}
