import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { type ExecutionResult, GraphQLError, type ValidationContext } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../domain/order-list.ts';
import { costLimitRule, type CostModel } from './graphql-cost.ts';

/**
 * What one GraphQL operation may ask for, checked in parse and validation before any resolver
 * runs, on every transport (HTTP, SSE, WebSocket). Measured against our own clients
 * (test/graphql-limits.test.ts): the deepest is a Relay page of orders with intents,
 * `ordersConnection > edges > node > sourceIntent > field`, depth 5; the REST layer's documents
 * are fixed and executed without this validation.
 */
export const GRAPHQL_LIMITS = {
  depth: 6,
  aliases: 15,
  tokens: 1000,
  directives: 50,
  cost: 25_000,
} as const;

/**
 * Cost (src/http/graphql-cost.ts): 1 per scalar, 20 per object, a page field's selection times its
 * page size. The heaviest page a client needs, 100 orders with every order and intent field, costs
 * 19,400 through `ordersConnection(first: 100)` (with cursors and pageInfo) and 15,400 through
 * `orders(limit: 100)`; each is admitted, two in one request are not. A 100-order page costs at
 * least 2,100 whatever it selects (4,100 with one order field), so fifteen aliased ones never fit.
 */
export const COST_MODEL: CostModel = {
  maxCost: GRAPHQL_LIMITS.cost,
  scalar: 1,
  object: 20,
  maxPageSize: MAX_LIMIT,
  defaultPageSize: DEFAULT_LIMIT,
  unsizedList: 50,
};

/** Armor's rules report into validation's error list instead of throwing out of validate(). */
const report = { propagateOnRejection: false, onReject: [(ctx: ValidationContext | null, error: GraphQLError) => ctx?.reportError(error)] };

export function graphqlLimitPlugins(options: { production: boolean }): Plugin[] {
  const armor = new EnvelopArmor({
    // Fragments are a client's way to organise a query, not extra depth.
    maxDepth: { n: GRAPHQL_LIMITS.depth, flattenFragments: true, ...report },
    maxAliases: { n: GRAPHQL_LIMITS.aliases, ...report },
    maxTokens: { n: GRAPHQL_LIMITS.tokens },
    maxDirectives: { n: GRAPHQL_LIMITS.directives, ...report },
    // Ours counts `limit` and variables too (see COST_MODEL).
    costLimit: { enabled: false },
    // "Did you mean ...?" maps a private schema for an attacker; exploring is for development.
    blockFieldSuggestion: { enabled: options.production },
  });
  return [
    ...(armor.protect().plugins as Plugin[]),
    ...(options.production ? [hideSuggestions] : []),
    { onValidate: ({ addValidationRule }) => addValidationRule(costLimitRule(COST_MODEL)) },
    formPostCsrfPrevention(),
  ];
}

export const CSRF_HEADER = 'x-graphql-yoga-csrf';

/**
 * Keys are bearer tokens, never cookies, so a request a browser sends cross-site carries no credential:
 * GET queries run without a CSRF header (default urql and Relay setups send queries as GET), and Yoga
 * refuses a mutation over GET. A POST of a type a form can send (form, multipart, text/plain) still needs
 * the header, and the message names it (README, For integrators).
 */
function formPostCsrfPrevention(): Plugin {
  const csrf = useCSRFPrevention({ requestHeaders: [CSRF_HEADER] });
  return {
    onRequestParse(payload) {
      if (payload.request.method === 'GET' || payload.request.method === 'HEAD') return;
      try {
        return csrf.onRequestParse?.(payload);
      } catch {
        throw createGraphQLError(
          `a POST with content-type ${payload.request.headers.get('content-type')} needs the ${CSRF_HEADER} header; send application/json`,
          {
            extensions: { http: { status: 403 } },
          },
        );
      }
    },
  };
}

const SUGGESTION = / ?Did you mean .*$/s;
const withoutSuggestion = (error: GraphQLError) =>
  SUGGESTION.test(error.message)
    ? new GraphQLError(error.message.replace(SUGGESTION, ''), {
        nodes: error.nodes,
        source: error.source,
        positions: error.positions,
        path: error.path,
        originalError: error.originalError,
        extensions: error.extensions,
      })
    : error;

/**
 * Armor hides field suggestions only; an enum value's ("Did you mean the enum value ...?"), from a
 * literal in validation or a variable in execution, maps the schema as well: hidden the same way, in
 * the result as it is sent, whichever phase made the error.
 */
const hideSuggestions: Plugin = {
  onResultProcess: ({ result, setResult }) => {
    if (Array.isArray(result)) return setResult(result.map(withoutSuggestions));
    if (!(Symbol.asyncIterator in (result as object))) setResult(withoutSuggestions(result as ExecutionResult));
  },
};

function withoutSuggestions(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.some((error) => SUGGESTION.test(error.message))) return result;
  return { ...result, errors: result.errors.map(withoutSuggestion) };
}
