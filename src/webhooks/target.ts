import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Sending a webhook to a URL an integrator gave us, without letting that URL reach inside our
 * network (SSRF): every address the host resolves to must be public unicast, checked after DNS
 * resolution and pinned for the connection (the socket connects to the address that was checked,
 * so a second resolution cannot swap in 127.0.0.1), and redirects are never followed (Node's
 * http.request does not follow them; a 3xx is a failed attempt).
 */

export class PrivateTargetError extends Error {
  override readonly name = 'PrivateTargetError';
}

/**
 * Public unicast only: loopback, private, link-local, CGNAT, multicast, reserved and unspecified are refused,
 * and so is every IPv6 form that carries an IPv4 address (mapped and translated are unwrapped; NAT64, 6to4
 * and Teredo are ranges of their own). ipaddr.js calls IPv4-compatible ::a.b.c.d (::/96) unicast, and some
 * stacks route it to the IPv4 address: that whole deprecated block is refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return false;
  return parsed.range() === 'unicast';
}

/** Checks a URL as given at registration: scheme, and a literal private address (names are checked at each send). */
export function urlProblem(raw: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute http:// or https:// URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'url must be an absolute http:// or https:// URL';
  if (url.username || url.password) return 'url must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(host) && !isPublicAddress(host)) {
    return 'url must not point to a loopback, private or link-local address';
  }
  return undefined;
}

/** A DNS lookup that fails when any resolved address is not public. */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as LookupAddress[];
      const refused = allowPrivate ? undefined : list.find((a) => !isPublicAddress(a.address));
      if (refused || list.length === 0) {
        return callback(
          new PrivateTargetError(`${hostname} resolves to ${refused?.address ?? 'nothing'}, which is not a public address`),
          '',
          0,
        );
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

export interface SendResult {
  statusCode?: number;
  /** The first bytes of the answer. */
  response?: string;
  error?: string;
  latencyMs: number;
}

const RESPONSE_BYTES = 1024;

/** POSTs the body; never throws. Success is a 2xx; anything else (3xx included) is a failure. */
export function postWebhook(
  raw: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const done = (result: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, latencyMs: elapsed() });
    };
    const url = new URL(raw);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!options.allowPrivate && isIP(host) && !isPublicAddress(host)) {
      return done({ error: `${host} is not a public address` });
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(url, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'orderbook-webhooks/1',
      },
      lookup: guardedLookup(options.allowPrivate),
      agent: false,
    });
    // One deadline for the whole exchange: connect, send, and the answer's first 1 KiB.
    const timer = setTimeout(() => {
      request.destroy();
      done({ error: `timed out after ${options.timeoutMs} ms` });
    }, options.timeoutMs);
    request.on('error', (error) => done({ error: error.message }));
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        if (size < RESPONSE_BYTES) chunks.push(chunk);
        size += chunk.length;
        if (size >= RESPONSE_BYTES) response.destroy();
      });
      const finish = () =>
        done({ statusCode: response.statusCode, response: Buffer.concat(chunks).subarray(0, RESPONSE_BYTES).toString('utf8') });
      response.on('end', finish);
      response.on('close', finish);
      response.on('error', finish);
    });
    request.end(body);
  });
}
