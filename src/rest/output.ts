/** Output shaping: GraphQL results to the REST spelling. */

/** GraphQL enum values are UPPER_CASE; REST speaks the contract's lowercase statuses. */
export function restOrder(order: unknown): unknown {
  const o = order as { status?: string } | null;
  // In place: the object is this request's own GraphQL result, and a page has 20 to 100 of them to copy otherwise.
  if (o && typeof o.status === 'string') o.status = o.status.toLowerCase();
  return o;
}

export function restClaim(claim: unknown): unknown {
  const c = claim as { status: string };
  return { ...c, status: c.status.toLowerCase() };
}

export function restPage(page: unknown): unknown {
  const p = page as { data: unknown[] };
  for (const order of p.data) restOrder(order);
  return p;
}
