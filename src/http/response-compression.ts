import { Readable } from 'node:stream';
import { brotliCompressSync, constants, createBrotliCompress, createGzip, gzipSync } from 'node:zlib';
import type { Plugin } from 'graphql-yoga';
import { pickCoding, varyOnAcceptEncoding } from './accept-encoding.ts';

/**
 * Compresses API answers for clients that ask (Accept-Encoding: br or gzip), README, Operations. Answers
 * under MIN_BYTES are sent as they are (the headers would outweigh the saving); event streams
 * (subscriptions) are never compressed, since a compressor holds back each event until it has enough bytes.
 * A streamed export is compressed as it streams. Turned off with COMPRESS_RESPONSES=false behind a proxy
 * that compresses.
 */
export const MIN_BYTES = 1024;

const COMPRESSIBLE = /^(application\/(json|graphql-response\+json|x-ndjson)|text\/(csv|plain|html))/i;
/** Answers written as they are produced (the exports): compressed as a stream, never read whole. */
const STREAMED = /^(application\/x-ndjson|text\/csv)/i;

/** Brotli's quality for answers made per request: its default (11) costs several times the CPU for a few % less. */
const BROTLI_QUALITY = 4;

export function responseCompressionPlugin(): Plugin {
  return {
    onResponse({ request, response, setResponse, fetchAPI }) {
      if (!response.body || response.headers.has('content-encoding') || request.method === 'HEAD') return;
      if (response.status === 204 || response.status === 304) return;
      if (!COMPRESSIBLE.test(response.headers.get('content-type') ?? '')) return;
      const length = response.headers.get('content-length');
      if (length !== null && Number(length) < MIN_BYTES) return;
      const headers = new fetchAPI.Headers(response.headers) as Headers;
      varyOnAcceptEncoding(headers);
      const coding = pickCoding(request.headers.get('accept-encoding'));
      if (coding === 'identity')
        return setResponse(new fetchAPI.Response(response.body, { status: response.status, statusText: response.statusText, headers }));
      headers.set('content-encoding', coding);
      if (length === null && STREAMED.test(response.headers.get('content-type') ?? '')) {
        // A stream (an export): compressed chunk by chunk, flushed as the source flushes.
        headers.delete('content-length');
        const compressor =
          coding === 'br' ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } }) : createGzip();
        const source = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
        source.on('error', (error) => compressor.destroy(error));
        const body = Readable.toWeb(source.pipe(compressor)) as ReadableStream<Uint8Array>;
        return setResponse(new fetchAPI.Response(body, { status: response.status, statusText: response.statusText, headers }));
      }
      return response.arrayBuffer().then((buffer) => {
        const input = new Uint8Array(buffer);
        if (input.length < MIN_BYTES) {
          headers.delete('content-encoding');
          return setResponse(new fetchAPI.Response(input, { status: response.status, statusText: response.statusText, headers }));
        }
        const compressed =
          coding === 'br' ? brotliCompressSync(input, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } }) : gzipSync(input);
        headers.set('content-length', String(compressed.length));
        setResponse(new fetchAPI.Response(compressed, { status: response.status, statusText: response.statusText, headers }));
      });
    },
  };
}
