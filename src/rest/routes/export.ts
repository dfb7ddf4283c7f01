import { parseUserId } from '../../domain/orders.ts';
import { exportResponse, parseExportFormat } from '../export.ts';
import { restOrder } from '../output.ts';
import { orderFilter } from '../query.ts';
import { streamed, type Route, type RouteInput } from '../route.ts';

/**
 * The two exports differ only in whose orders they stream: every one (no user) or one user's.
 */
function exportRoute(
  path: string,
  operationId: string,
  summary: string,
  description: string,
  userOf: (input: RouteInput) => string | undefined,
): Route {
  return {
    method: 'GET',
    path,
    doc: {
      operationId,
      summary,
      description,
      tag: 'Orders',
      document: 'order',
      result: ['order'],
      responses: { 200: 'The orders, streamed.' },
      errors: [400],
      stream: {
        'text/csv': 'A header row, then one row per order.',
        'application/x-ndjson': 'One JSON order per line, as GET /orders/{order_id} gives it.',
      },
    },
    async handle(input, run) {
      const format = parseExportFormat(input.query.get('format'));
      const userId = userOf(input);
      const variables = userId === undefined ? { filter: orderFilter(input) } : { userId, filter: orderFilter(input) };
      return streamed(await exportResponse({ format, variables, scope: userId ?? 'all', now: input.now, run, toRest: restOrder }));
    },
  };
}

export const exportOrders: Route = exportRoute(
  '/orders/export',
  'exportOrders',
  'Export orders (CSV or NDJSON)',
  'The whole filtered list, newest first, streamed; `format` is csv or ndjson. Same filters as GET /orders.',
  () => undefined,
);

export const exportUserOrders: Route = exportRoute(
  '/orders/user/:userId/export',
  'exportUserOrders',
  "Export a user's orders (CSV or NDJSON)",
  "All of the user's orders, newest first, streamed; `format` is csv or ndjson.",
  (input) => parseUserId(input.params.userId, 'user_id'),
);
