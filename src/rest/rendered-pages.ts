import { Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { INTENT, ORDER, type ModelColumns } from '../db/model-columns.ts';
import { statusSql } from '../domain/status/rule.ts';
import { documents } from './documents.ts';

/**
 * REST's user page with its orders rendered as JSON by PostgreSQL (README, REST and GraphQL). The page is
 * the hottest read. Through GraphQL, Node parses every column of the page, builds objects, resolves and
 * serialises each field, then stringifies the whole; here the statement returns the page's orders as one
 * JSON text and Node only puts it in the envelope, so most of that CPU is never spent.
 *
 * Nothing about the shape is written twice. The keys, their order and their fields come from the REST
 * document's fragments (documents.ts, OrderFields and IntentFields); each field's text from its column's
 * type, printed as the GraphQL types print it (decimals as plain strings, times in UTC whole seconds); the
 * status from the status rule's SQL form (statusSql). test/rendered-pages.test.ts holds the bytes against
 * the document's answer, on PGlite and PostgreSQL.
 */

/** The GraphQL fields that are not a column of the same name (snake_case) or need more than the column. */
export const ORDER_FIELD_COLUMNS: Record<string, string> = { orderId: 'id' };
const INTENT_SIDES: Record<string, string> = { sourceIntent: 's', destinationIntent: 'd' };

/** A column's value as the GraphQL types print it: decimals as plain strings, times `YYYY-MM-DDTHH:MM:SSZ`. */
function columnText(model: ModelColumns, alias: string, field: string, column = field): string {
  const found = model.columns.find((c) => c.field === column);
  if (!found) throw new Error(`rendered pages: ${model.model}.${field} is not a column; render it explicitly here`);
  const value = `${alias}.${found.name}`;
  if (found.cast === 'numeric') return `trim_scale(${value})::text`;
  if (found.cast === 'timestamptz') return `to_char(${value} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
  return value;
}

/** `(SELECT row_to_json(r) FROM (SELECT <value> AS "<key>", ...) r)`: compact JSON, keys in the given order. */
const objectJson = (entries: [key: string, value: string][]) =>
  `(SELECT row_to_json(r) FROM (SELECT ${entries.map(([key, value]) => `${value} AS "${key}"`).join(', ')}) r)`;

/** The fields of a selection, fragments spread in place, as [response key, field name, sub-selection]. */
export function fieldsOf(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>) {
  const fields: [key: string, field: string, selection: SelectionSetNode | undefined][] = [];
  for (const selection of selectionSet.selections) {
    // @include/@skip would change the answer per request: a rendered page has one shape.
    if (selection.directives?.length) throw new Error('rendered JSON: directives are not supported');
    if (selection.kind === Kind.FIELD) {
      fields.push([selection.alias?.value ?? selection.name.value, selection.name.value, selection.selectionSet]);
    } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
      fields.push(...fieldsOf(fragments.get(selection.name.value)!.selectionSet, fragments));
    } else {
      throw new Error('rendered JSON: inline fragments are not supported');
    }
  }
  return fields;
}

/** A document's fragment as its fields (fragments spread in place), with the document's fragments by name. */
export function fragmentFields(document: DocumentNode, fragmentName: string) {
  const fragments = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  const fragment = fragments.get(fragmentName);
  if (!fragment) throw new Error(`rendered JSON: no fragment ${fragmentName}`);
  return { fields: fieldsOf(fragment.selectionSet, fragments), fragments };
}

/** Stands for the clock in the built SQL until a statement says which parameter it is. */
const NOW = '\u0000now\u0000';

/**
 * The SQL expression of one order's JSON, over the page's order row `o` and its intents `s` and `d`, as the
 * fragment `fragmentName` of `document` selects it, given the SQL expression of the request's clock. Built
 * here, once: a fragment this cannot render fails at start-up, not on a request.
 */
export function orderJsonSql(document: DocumentNode, fragmentName: string): (now: string) => string {
  const { fields, fragments } = fragmentFields(document, fragmentName);
  const entries = fields.map(([key, field, selection]): [string, string] => {
    if (field === 'status') return [key, statusSql('o', NOW)];
    const side = INTENT_SIDES[field];
    if (side) {
      const intent = fieldsOf(selection!, fragments).map(([k, f]): [string, string] => [k, columnText(INTENT, side, f)]);
      return [key, objectJson(intent)];
    }
    return [key, columnText(ORDER, 'o', field, ORDER_FIELD_COLUMNS[field])];
  });
  const sql = `${objectJson(entries)}::text`;
  return (now) => sql.replaceAll(NOW, () => now);
}

/** An order of REST's user page as JSON text, at the clock `now` (an SQL expression). */
export const restOrderJson = orderJsonSql(documents.ordersByUser, 'OrderFields');
