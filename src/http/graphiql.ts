import { fileURLToPath } from 'node:url';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import type { Plugin } from 'graphql-yoga';
import { PROJECT_ROOT } from '../paths.ts';
import { staticAssets } from './static-assets.ts';

/**
 * What GraphiQL opens with: a query that answers on an empty book too, and points at the rest. Anonymous:
 * GraphiQL settles the operation name a moment after each edit, so a query pasted and run at once would go
 * out with the previous name ("Cannot infer operation"); with no name there is none to be stale.
 */
export const GRAPHIQL_EXAMPLE = `# The order book's GraphQL API. Press the run button (or Ctrl-Enter).
# Every type and field is described in the Documentation Explorer (the book icon, top left).
{
  orders(limit: 5) {
    total
    data {
      orderId
      status
      sourceIntent { chain asset amount }
      destinationIntent { chain asset amount }
      createdAt
    }
  }
  stats {
    last24h { totalOrders completedOrders totalVolumeUsd }
  }
  assets { id symbol decimals priceUsd }
}

# Next: createQuote, then createOrder with the quote's amounts (see the README's curl walk-through),
# and follow an order live with: subscription { orderUpdated(orderId: "...") { status updatedAt } }
`;

export const GRAPHIQL_OPTIONS = { title: 'Order book GraphQL', defaultQuery: GRAPHIQL_EXAMPLE };

/** GraphiQL's page: its whole bundle inlined, from the npm package (no CDN). The build writes it to dist/graphiql. */
export const graphiqlPage = (): string => renderGraphiQL(GRAPHIQL_OPTIONS);

export const GRAPHIQL_DIR = fileURLToPath(new URL('dist/graphiql/', PROJECT_ROOT));

/**
 * Serves the built page (compressed, ETag) where Yoga would render GraphiQL: a GET of the endpoint that
 * accepts HTML. Undefined when the page is not built (`npm run dev` before a build): Yoga renders it then.
 */
export function builtGraphiqlPlugin(endpoint: string, dir = GRAPHIQL_DIR): Plugin | undefined {
  const assets = staticAssets(dir);
  if (!assets) return undefined;
  return {
    onRequest({ request, url, endResponse }) {
      if (url.pathname !== endpoint || request.method !== 'GET' || !request.headers.get('accept')?.includes('text/html')) return;
      const page = assets.serve(request, 'index.html');
      if (page) endResponse(page);
    },
  };
}
