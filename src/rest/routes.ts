import type { Route } from './route.ts';
import { exportOrders, exportUserOrders } from './routes/export.ts';
import { ingestionRoutes } from './routes/ingestion.ts';
import { createOrder, listOrders, oneOrder, userOrders } from './routes/orders.ts';
import { quoteRoutes } from './routes/quotes.ts';
import { registryRoutes } from './routes/registry.ts';
import { relayerRoutes } from './routes/relayer.ts';
import { statsRoutes } from './routes/stats.ts';
import { webhookRoutes } from './routes/webhooks.ts';

export type { Route, RouteInput, RouteResult, RunDocument } from './route.ts';
export { restClaim, restOrder } from './output.ts';

/**
 * The REST route table (README). The order is the OpenAPI document's, and the first match wins, so the
 * exports come before `/orders/:orderId`.
 */
export const routes: Route[] = [
  createOrder,
  listOrders,
  userOrders,
  exportOrders,
  exportUserOrders,
  oneOrder,
  ...statsRoutes,
  ...quoteRoutes,
  ...ingestionRoutes,
  ...relayerRoutes,
  ...webhookRoutes,
  ...registryRoutes,
];
