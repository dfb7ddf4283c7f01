import { CreateOrderSchema, createOrder as createOrderInDomain, createOrderSchemaFor, parseUserId } from '../../domain/orders.ts';
import { pageInfo } from '../../domain/order-list.ts';
import { restOrderJson } from '../rendered-pages.ts';
import { restCreatedOrderJson } from '../rendered-rows.ts';
import { restOrder, restPage } from '../output.ts';
import { orderFilter, pagination } from '../query.ts';
import { ok, runDomainWrite, type Route } from '../route.ts';

/** The order routes: create, list, a user's page, one order (the exports are in export.ts). */

export const createOrder: Route = {
  method: 'POST',
  path: '/orders',
  doc: {
    operationId: 'createOrder',
    summary: 'Create an order from a quote',
    description:
      'Consumes the quote exactly once. The same body again (after normalisation) answers 200 with the same order, even after the quote expired; a different body on a consumed quote is a 409.',
    tag: 'Orders',
    document: 'createOrder',
    input: CreateOrderSchema,
    result: ['createOrder', 'order'],
    responses: { 201: 'The new order.', 200: 'An exact replay: the order this body created before.' },
    errors: [400, 401, 404, 409, 410, 422],
    example: {
      user_id: 'alice',
      quote_id:
        'q_AmsKwkCBZasTVfof1AAAASwAFNPFzqMLYml0Y29pbjpidGMNZXRoZXJldW06d2J0YwOYloADmEuHCDk3MjUwLjEyCDk3MjMxLjU1dwb7jNF6R00X51u0AEdCMQ',
      commitment_hash: 'b595d0383257e1fa72aa69165b9c0b26915eba380781ce8b04b3702c27b0a015',
      source: { asset: 'bitcoin:btc', recipient: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', amount: '10000000' },
      destination: { asset: 'ethereum:wbtc', recipient: '0x5a5A5a5a5A5a5a5a5a5A5a5A5A5a5a5A5A5A5A5A', amount: '9980807' },
    },
  },
  body: true,
  write: true,
  // The createOrder document's answer (the doc above): a new order rendered from the rows its statement
  // returned (rendered-rows.ts); an exact replay, which answers 200 with the stored order, read as GET does.
  async handle(input, run) {
    const writer = input.writer();
    const created = await runDomainWrite(writer, createOrderSchemaFor(input.registry), input.body, createOrderInDomain);
    if (!created.stored) {
      const { data } = await run('order', { orderId: created.orderId });
      return ok(restOrder(data.order), created.replayed ? 200 : 201);
    }
    const { order, intents } = created.stored;
    const json = restCreatedOrderJson(order, intents, writer.deps.now());
    return { status: 201, result: undefined, json };
  },
};

export const listOrders: Route = {
  method: 'GET',
  path: '/orders',
  doc: {
    operationId: 'listOrders',
    summary: 'List orders',
    description: 'Newest first, offset pages; every filter given must hold.',
    tag: 'Orders',
    document: 'orders',
    result: ['orders'],
    responses: { 200: 'A page of orders (a page past the end has empty data and correct totals).' },
    errors: [400],
  },
  async handle(input, run) {
    const { data } = await run('orders', { ...pagination(input.query), filter: orderFilter(input) });
    return ok(restPage(data.orders));
  },
};

export const userOrders: Route = {
  method: 'GET',
  path: '/orders/user/:userId',
  doc: {
    operationId: 'listUserOrders',
    summary: "A user's orders",
    tag: 'Orders',
    document: 'ordersByUser',
    result: ['ordersByUser'],
    responses: { 200: "A page of the user's orders, newest first." },
    errors: [400],
  },
  // The answer of the ordersByUser document (the doc above), with PostgreSQL rendering the orders:
  // the hottest page, which skips GraphQL execution and serialisation this way (rendered-pages.ts).
  async handle(input) {
    const userId = parseUserId(input.params.userId, 'user_id');
    const page = pagination(input.query);
    const { data, total } = await input.orders().userPageJson(userId, page, restOrderJson, input.now);
    const { totalPages } = pageInfo(page, total);
    const json = `{"data":[${data}],"page":${page.page},"limit":${page.limit},"total":${total},"total_pages":${totalPages}}`;
    return { status: 200, result: undefined, json };
  },
};

export const oneOrder: Route = {
  method: 'GET',
  path: '/orders/:orderId',
  doc: {
    operationId: 'getOrder',
    summary: 'One order',
    tag: 'Orders',
    document: 'order',
    result: ['order'],
    responses: { 200: 'The order, with both intents and its status now.' },
    errors: [404],
  },
  async handle(input, run) {
    const { data } = await run('order', { orderId: input.params.orderId });
    return ok(restOrder(data.order));
  },
};
