import type { FieldNode, FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';

/**
 * Whether the query asks, under the resolved field and along `path` (field names, e.g. ['data']),
 * for any of `fields`. Fragments are followed; directives are not evaluated, so a field skipped
 * by @skip still counts (reading it anyway is only wasted work, never a wrong answer).
 */
export function selects(info: GraphQLResolveInfo, path: readonly string[], fields: readonly string[]): boolean {
  let level: FieldNode[] = [...info.fieldNodes];
  for (const name of path) level = fieldsOf(level, info.fragments).filter((field) => field.name.value === name);
  return fieldsOf(level, info.fragments).some((field) => fields.includes(field.name.value));
}

function fieldsOf(nodes: readonly FieldNode[], fragments: Record<string, FragmentDefinitionNode>): FieldNode[] {
  const out: FieldNode[] = [];
  const visit = (set: SelectionSetNode | undefined) => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === 'Field') out.push(selection);
      else if (selection.kind === 'InlineFragment') visit(selection.selectionSet);
      else visit(fragments[selection.name.value]?.selectionSet);
    }
  };
  for (const node of nodes) visit(node.selectionSet);
  return out;
}
