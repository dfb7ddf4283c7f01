import {
  GraphQLError,
  Kind,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isObjectType,
  valueFromASTUntyped,
  type ASTVisitor,
  type FieldNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

export interface CostModel {
  maxCost: number;
  /** A value the response holds: a scalar or enum, and an object (a row to read and shape) on top of its fields. */
  scalar: number;
  object: number;
  /** Page sizes: the most a size argument admits (a variable counts as this), and the size when none is given. */
  maxPageSize: number;
  defaultPageSize: number;
  /** Items counted for a list no argument sizes (the registry's assets and chains, the stats' top lists). */
  unsizedList: number;
}

/** Arguments that size the list a field returns, or the list inside the page it returns. */
const SIZE_ARGUMENTS = ['first', 'last', 'limit'];

/**
 * The cost of an operation as the most its response can hold: each scalar and each object counts,
 * a field that takes a page size (`first`, `last`, `limit`) counts everything it selects that many
 * times (it may read that many rows whatever is selected: `ordersConnection` does), and a list
 * that no argument sizes counts a fixed number of items. Computed from the document alone, so the
 * parse-and-validate cache stays correct: a size given as a variable counts as the largest page the
 * resolvers accept.
 *
 * graphql-armor's cost limit multiplies by literal `first`/`last` only: `limit`, and any variable,
 * counted 1.
 */
export function costLimitRule(model: CostModel) {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(operation) {
      const root = context.getSchema().getRootType(operation.operation);
      if (!root) return;
      const cost = new CostCounter(context, model).selections(operation.selectionSet, root, false);
      if (cost > model.maxCost) {
        context.reportError(new GraphQLError(`Query cost limit of ${model.maxCost} exceeded, found ${cost}.`, { nodes: [operation] }));
      }
    },
  });
}

interface IntrospectionWeights {
  schema: number;
  largestType: number;
}

const weightsBySchema = new WeakMap<GraphQLSchema, IntrospectionWeights>();

/**
 * What introspection can return, counted as objects: every type, and in it every field, input field,
 * argument and enum value (each an object of the introspection response).
 */
function introspectionWeights(schema: GraphQLSchema, model: CostModel): IntrospectionWeights {
  const known = weightsBySchema.get(schema);
  if (known) return known;
  let total = 0;
  let largestType = 0;
  for (const type of Object.values(schema.getTypeMap())) {
    let members = 0;
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) members += 1 + field.args.length;
    } else if (isInputObjectType(type)) {
      members = Object.keys(type.getFields()).length;
    } else if (isEnumType(type)) {
      members = type.getValues().length;
    }
    const weight = model.object * (1 + members);
    total += weight;
    largestType = Math.max(largestType, weight);
  }
  const weights = { schema: model.object + total, largestType: model.object + largestType };
  weightsBySchema.set(schema, weights);
  return weights;
}

class CostCounter {
  /** Fragment costs by name and place: a spread repeated many times is counted, not recomputed. */
  private readonly fragments = new Map<string, number>();

  constructor(
    private readonly context: ValidationContext,
    private readonly model: CostModel,
  ) {}

  /** `inPage`: below a page field, whose size already counted the items of the list it returns. */
  selections(set: SelectionSetNode, type: GraphQLNamedType, inPage: boolean): number {
    let cost = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        cost += this.field(selection, type, inPage);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition && this.context.getSchema().getType(selection.typeCondition.name.value);
        cost += this.selections(selection.selectionSet, condition ?? type, inPage);
      } else {
        cost += this.fragment(selection.name.value, inPage);
      }
    }
    return cost;
  }

  private fragment(name: string, inPage: boolean): number {
    const key = `${name}:${inPage}`;
    const known = this.fragments.get(key);
    if (known !== undefined) return known;
    // A fragment cycle is NoFragmentCyclesRule's to report; here it costs nothing more.
    this.fragments.set(key, 0);
    const fragment = this.context.getFragment(name);
    const type = fragment && this.context.getSchema().getType(fragment.typeCondition.name.value);
    const cost = fragment && type ? this.selections(fragment.selectionSet, type, inPage) : 0;
    this.fragments.set(key, cost);
    return cost;
  }

  private field(node: FieldNode, parent: GraphQLNamedType, inPage: boolean): number {
    const name = node.name.value;
    if (name === '__typename') return this.model.scalar;
    // Introspection answers with the schema itself: each `__schema` weighs the whole schema, each `__type`
    // the largest type, whatever they select (so one GraphiQL introspection fits, a dozen aliased do not).
    if (name === '__schema') return introspectionWeights(this.context.getSchema(), this.model).schema;
    if (name === '__type') return introspectionWeights(this.context.getSchema(), this.model).largestType;
    const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
    // An unknown field is FieldsOnCorrectTypeRule's to report.
    if (!field) return 0;
    if (!node.selectionSet) return this.model.scalar;
    const type = getNamedType(field.type);
    const pageSize = this.pageSize(node, field);
    if (pageSize !== undefined) return pageSize * (this.model.object + this.selections(node.selectionSet, type, true));
    if (!isListType(getNullableType(field.type))) return this.model.object + this.selections(node.selectionSet, type, inPage);
    // The page's own list (`data`, `edges`) was counted by the page's size; any other list by a fixed guess.
    const items = inPage ? 1 : this.model.unsizedList;
    return items * (this.model.object + this.selections(node.selectionSet, type, false));
  }

  /** The page size this field asks for, if it takes one: a literal, a variable at its largest, or the default. */
  private pageSize(node: FieldNode, field: GraphQLField<unknown, unknown>): number | undefined {
    if (!field.args.some((arg) => SIZE_ARGUMENTS.includes(arg.name))) return undefined;
    const given = (node.arguments ?? []).filter((arg) => SIZE_ARGUMENTS.includes(arg.name.value));
    if (given.length === 0) return this.model.defaultPageSize;
    return Math.max(
      ...given.map(({ value }) => {
        if (value.kind === Kind.VARIABLE) return this.model.maxPageSize;
        if (value.kind === Kind.NULL) return this.model.defaultPageSize;
        const literal = Number(valueFromASTUntyped(value));
        return Number.isFinite(literal) ? Math.max(0, literal) : this.model.maxPageSize;
      }),
    );
  }
}
