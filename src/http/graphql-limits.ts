import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import type { Plugin } from 'graphql-yoga';

/**
 * What one GraphQL request may ask for, checked during validation, before any resolver runs.
 * Measured against our own clients (test/graphql-limits.test.ts): the deepest is a Relay page of
 * orders with intents, `ordersConnection > edges > node > sourceIntent > field`, depth 5; the REST
 * layer's documents are fixed and executed without this validation.
 *
 * Cost (graphql-armor's: 2 per object, 1 per scalar, x1.5 per level, x`first` for a connection):
 * the heaviest page a client needs, 100 orders with every order and intent field through
 * `ordersConnection(first: 100)`, costs about 38,000; 50,000 admits it and refuses two of them.
 */
export const GRAPHQL_LIMITS = {
  depth: 6,
  aliases: 15,
  tokens: 1000,
  directives: 50,
  cost: 50_000,
} as const;

export function graphqlLimitPlugins(options: { production: boolean }): Plugin[] {
  const armor = new EnvelopArmor({
    // Fragments are a client's way to organise a query, not extra depth.
    maxDepth: { n: GRAPHQL_LIMITS.depth, flattenFragments: true },
    maxAliases: { n: GRAPHQL_LIMITS.aliases },
    maxTokens: { n: GRAPHQL_LIMITS.tokens },
    maxDirectives: { n: GRAPHQL_LIMITS.directives },
    costLimit: { maxCost: GRAPHQL_LIMITS.cost },
    // "Did you mean ...?" maps a private schema for an attacker; exploring is for development.
    blockFieldSuggestion: { enabled: options.production },
  });
  return [
    ...(armor.protect().plugins as Plugin[]),
    // A GET with a query must carry this header (or be a preflighted request), so a cross-site
    // <img>/<form> cannot run one with the user's cookies. Yoga's GraphiQL sends it.
    useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf'] }),
  ];
}
