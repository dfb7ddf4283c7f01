import { GraphQLError, getOperationAST, getVariableValues, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Checks a client's variables against its operation before anything runs, with graphql-js' own
 * coercion, so a wrong type, a missing field or a bad scalar (DateTime) is a BAD_REQUEST whose
 * message names the client's variable and the path inside it (`Variable "$f" got invalid value
 * "yesterday" at "f.from"; ...`). Without it the JIT's coercion reports its own internal names, and
 * a scalar's parse error reaches the masking as an unexpected one (INTERNAL).
 * The REST layer's documents too: their variables are the client's body, renamed, and a refusal
 * sends the REST layer to its own parse of the body, which names the field in snake_case.
 */
export function graphqlVariablesPlugin(): Plugin {
  const check = (schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, inputs: unknown) => {
    const definitions = getOperationAST(document, operationName)?.variableDefinitions;
    if (!definitions?.length) return undefined;
    const { errors } = getVariableValues(schema, definitions, (inputs ?? {}) as Record<string, unknown>, { maxErrors: 10 });
    return errors?.map((error) => new GraphQLError(error.message, { nodes: error.nodes, extensions: { code: 'BAD_REQUEST' } }));
  };
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const errors = check(args.schema, args.document, args.operationName, args.variableValues);
      if (errors) setResultAndStopExecution({ errors });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const errors = check(args.schema, args.document, args.operationName, args.variableValues);
      if (errors) setResultAndStopExecution({ errors });
    },
  };
}
