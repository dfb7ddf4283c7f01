/**
 * The content coding to answer with, from the request's Accept-Encoding (RFC 9110 12.5.3): the offered
 * coding with the highest q, br before gzip on a tie; `identity` when the client takes neither.
 */
export type Coding = 'br' | 'gzip' | 'identity';

export function pickCoding(acceptEncoding: string | null, offered: readonly Coding[] = ['br', 'gzip']): Coding {
  if (!acceptEncoding) return 'identity';
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  let best: Coding = 'identity';
  let bestQ = 0;
  for (const coding of offered) {
    const value = q.get(coding) ?? q.get('*') ?? 0;
    if (value > bestQ) [best, bestQ] = [coding, value];
  }
  return best;
}

/** Adds Accept-Encoding to a response's Vary, keeping what is there. */
export function varyOnAcceptEncoding(headers: Headers): void {
  const vary = headers.get('vary');
  if (!vary) headers.set('vary', 'Accept-Encoding');
  else if (!/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary)) headers.set('vary', `${vary}, Accept-Encoding`);
}
