import { stringify } from 'csv-stringify/sync';
import { Kind, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { badRequest } from '../domain/errors.ts';
import { documents } from './documents.ts';
import type { RunDocument } from './routes.ts';

/**
 * `GET /orders/export` and `GET /orders/user/{user_id}/export`: the whole list, streamed.
 *
 * Pages come from the keyset connection (`ordersConnection`, created_at desc, id desc) through the
 * same fixed-document path as every REST read, so a line is the order exactly as `GET /orders/{id}`
 * returns it. The stream asks for the next page only when the client has taken the previous one
 * (a pull stream), so memory stays one page deep whatever the export's size.
 */

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Rows per round trip: the connection's own maximum page. */
const EXPORT_PAGE = 100;

export function parseExportFormat(value: string | null): ExportFormat {
  if (value === null) return 'csv';
  if (!(EXPORT_FORMATS as readonly string[]).includes(value)) {
    throw badRequest(`format must be one of ${EXPORT_FORMATS.join(', ')}`);
  }
  return value as ExportFormat;
}

interface ConnectionPage {
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  edges: { node: Record<string, unknown> }[];
}

export interface ExportRequest {
  format: ExportFormat;
  /** Variables of `ordersConnection` besides the page: `filter`, `userId`. */
  variables: Record<string, unknown>;
  /** Names the downloaded file (`orders-<scope>-<time>.csv`). */
  scope: string;
  now: Date;
  run: RunDocument;
  /** Turns an order of the GraphQL result into its REST shape (lowercase status). */
  toRest: (order: unknown) => unknown;
}

/**
 * The export's response. The first page is read before answering, so a refused filter or a database
 * that is down is still an error envelope with its status code, not a broken download.
 */
export async function exportResponse(request: ExportRequest): Promise<Response> {
  const fetchPage = async (after: string | null) => {
    const { data } = await request.run('ordersExport', { ...request.variables, first: EXPORT_PAGE, after });
    return data.ordersConnection as ConnectionPage;
  };
  const encode = request.format === 'csv' ? csvEncoder() : ndjsonEncoder();
  const encoder = new TextEncoder();
  let page: ConnectionPage | undefined = await fetchPage(null);
  let header = true;

  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!page) return controller.close();
      const orders = page.edges.map((edge) => request.toRest(edge.node) as Record<string, unknown>);
      const text = encode(orders, header);
      header = false;
      const { hasNextPage, endCursor } = page.pageInfo;
      page = undefined;
      if (text.length > 0) controller.enqueue(encoder.encode(text));
      // A failure mid-stream can only cut the download short (the status line is sent): the
      // error ends the stream, and the client sees a truncated body, never a partial success.
      if (hasNextPage && endCursor) page = await fetchPage(endCursor);
    },
  });

  const stamp = request.now.toISOString().replace(/[-:]|\.\d+/g, '');
  const filename = `orders-${safeName(request.scope)}-${stamp}.${request.format}`;
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': request.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      'content-disposition': `attachment; filename="${filename}"`,
      'cache-control': 'no-store',
    },
  });
}

/** File names keep letters, digits, dot, dash and underscore; a user id may hold anything else. */
function safeName(scope: string): string {
  return scope.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
}

type Encoder = (orders: Record<string, unknown>[], first: boolean) => string;

function ndjsonEncoder(): Encoder {
  return (orders) => orders.map((order) => `${JSON.stringify(order)}\n`).join('');
}

/**
 * CSV: one row per order, both intents flattened into `source_intent.<field>` and
 * `destination_intent.<field>` columns. The columns are the export document's own selection, so
 * every field a REST order carries is a column, in the same order. Cells that a spreadsheet would
 * run as a formula (`=`, `+`, `-`, `@` first) are prefixed with `'` by csv-stringify.
 */
function csvEncoder(): Encoder {
  const columns = EXPORT_COLUMNS;
  return (orders, first) =>
    stringify(
      orders.map((order) =>
        columns.map((column) => cell(column.path.reduce<unknown>((v, key) => (v as Record<string, unknown> | null)?.[key], order))),
      ),
      { header: first, columns: columns.map((c) => c.name), escape_formulas: true, record_delimiter: 'windows' },
    );
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : String(value);
}

interface Column {
  name: string;
  path: string[];
}

/** The leaf fields of the export document's order (fragments expanded), as CSV columns. */
function columnsOf(): Column[] {
  const document = documents.ordersExport;
  const fragments = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  const walk = (set: SelectionSetNode, prefix: string[]): Column[] =>
    set.selections.flatMap((selection) => {
      if (selection.kind === Kind.FRAGMENT_SPREAD) return walk(fragments.get(selection.name.value)!.selectionSet, prefix);
      if (selection.kind !== Kind.FIELD) return [];
      const path = [...prefix, (selection.alias ?? selection.name).value];
      return selection.selectionSet ? walk(selection.selectionSet, path) : [{ name: path.join('.'), path }];
    });
  return walk(fragments.get('OrderFields')!.selectionSet, []);
}

export const EXPORT_COLUMNS: readonly Column[] = columnsOf();
