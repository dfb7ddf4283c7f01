import {
  type GraphQLOutputType,
  type GraphQLSchema,
  type SelectionSetNode,
  Kind,
  getNamedType,
  getNullableType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  typeFromAST,
  type OperationDefinitionNode,
  type GraphQLType,
} from 'graphql';
import ts from 'typescript';

/**
 * Compares a hand-written result or variables type (read by the TypeScript compiler) with what a GraphQL
 * document selects from the schema: the same fields, null exactly where the schema allows it, lists, and each
 * scalar and enum as the JSON value it arrives as. Answers the differences, as readable lines.
 */

const STRING_SCALARS = new Set(['String', 'ID', 'DateTime']);
const NUMBER_SCALARS = new Set(['Int', 'Float', 'SafeInt']);

export class DocumentTypes {
  private readonly checker: ts.TypeChecker;
  private readonly file: ts.SourceFile;

  constructor(path: string) {
    const program = ts.createProgram([path], {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      allowImportingTsExtensions: true,
      noEmit: true,
      skipLibCheck: true,
    });
    this.checker = program.getTypeChecker();
    this.file = program.getSourceFile(path)!;
  }

  /** The result and variables types of an exported Document<Result, Variables>. */
  typesOf(exportName: string): { result: ts.Type; variables: ts.Type } {
    const module = this.checker.getSymbolAtLocation(this.file)!;
    const symbol = this.checker.getExportsOfModule(module).find((s) => s.name === exportName);
    if (!symbol) throw new Error(`${exportName} is not exported`);
    const carrier = this.property(this.checker.getTypeOfSymbolAtLocation(symbol, this.file), 'types');
    const types = this.checker.getNonNullableType(carrier!);
    return { result: this.property(types, 'result')!, variables: this.property(types, 'variables')! };
  }

  /** Differences between a result type and an operation's selection. */
  compareResult(schema: GraphQLSchema, operation: OperationDefinitionNode, result: ts.Type): string[] {
    const root = schema.getRootType(operation.operation)!;
    return this.compareSelection(schema, root.name, operation.selectionSet, result, 'result');
  }

  /** Differences between a variables type and an operation's variable definitions. */
  compareVariables(schema: GraphQLSchema, operation: OperationDefinitionNode, variables: ts.Type): string[] {
    const problems: string[] = [];
    const declared = new Set(this.checker.getPropertiesOfType(variables).map((p) => p.name));
    for (const definition of operation.variableDefinitions ?? []) {
      const name = definition.variable.name.value;
      declared.delete(name);
      const type = this.property(variables, name);
      const optional = this.isOptional(variables, name);
      if (!type) problems.push(`variables.${name}: missing`);
      else if (optional && definition.type.kind === Kind.NON_NULL_TYPE) problems.push(`variables.${name}: is required by the document`);
      else
        problems.push(...this.compareType(schema, typeFromAST(schema, definition.type as never) as GraphQLType, type, `variables.${name}`));
    }
    for (const extra of declared) problems.push(`variables.${extra}: not a variable of the document`);
    return problems;
  }

  private isOptional(type: ts.Type, name: string): boolean {
    return ((this.checker.getPropertyOfType(type, name)?.flags ?? 0) & ts.SymbolFlags.Optional) !== 0;
  }

  private property(type: ts.Type, name: string): ts.Type | undefined {
    const symbol = this.checker.getPropertyOfType(type, name);
    return symbol ? this.checker.getTypeOfSymbolAtLocation(symbol, this.file) : undefined;
  }

  private compareSelection(schema: GraphQLSchema, typeName: string, selection: SelectionSetNode, tsType: ts.Type, at: string): string[] {
    const parent = schema.getType(typeName);
    if (!isObjectType(parent)) return [`${at}: ${typeName} is not an object type`];
    const problems: string[] = [];
    const declared = new Set(this.checker.getPropertiesOfType(tsType).map((p) => p.name));
    for (const node of selection.selections) {
      if (node.kind !== Kind.FIELD) return [`${at}: fragments are not compared`];
      const key = node.alias?.value ?? node.name.value;
      declared.delete(key);
      const field = parent.getFields()[node.name.value]!;
      const property = this.property(tsType, key);
      if (!property) {
        problems.push(`${at}.${key}: missing`);
        continue;
      }
      if (this.isOptional(tsType, key)) problems.push(`${at}.${key}: is always present in a result`);
      problems.push(...this.compareType(schema, field.type, property, `${at}.${key}`, node.selectionSet));
    }
    for (const extra of declared) problems.push(`${at}.${extra}: not selected`);
    return problems;
  }

  private compareType(schema: GraphQLSchema, type: GraphQLType, tsType: ts.Type, at: string, selection?: SelectionSetNode): string[] {
    const nullable = !isNonNullType(type);
    const allowsNull = tsType.isUnion() && tsType.types.some((t) => t.flags & ts.TypeFlags.Null);
    if (nullable !== allowsNull) return [`${at}: ${nullable ? 'may be null in the schema' : 'is never null in the schema'}`];
    const inner = getNullableType(type) as GraphQLOutputType;
    const value = this.checker.getNonNullableType(tsType);
    if (isListType(inner)) {
      if (!this.checker.isArrayType(value)) return [`${at}: is a list in the schema`];
      const element = this.checker.getTypeArguments(value as ts.TypeReference)[0]!;
      return this.compareType(schema, inner.ofType, element, `${at}[]`, selection);
    }
    const named = getNamedType(inner);
    if (selection) return this.compareSelection(schema, named.name, selection, value, at);
    if (isEnumType(named)) {
      const literals = value.isUnion() ? value.types : [value];
      const names = literals.map((t) => (t.isStringLiteral() ? t.value : '?')).sort();
      const expected = named
        .getValues()
        .map((v) => v.name)
        .sort();
      return names.join() === expected.join() ? [] : [`${at}: should be ${expected.join(' | ')}`];
    }
    if (isScalarType(named)) {
      const want = STRING_SCALARS.has(named.name)
        ? ts.TypeFlags.String
        : NUMBER_SCALARS.has(named.name)
          ? ts.TypeFlags.Number
          : ts.TypeFlags.Boolean;
      return value.flags & want ? [] : [`${at}: ${named.name} arrives as ${this.checker.typeToString(value)}?`];
    }
    return [`${at}: ${named.name} is not compared`];
  }
}
