/**
 * The explorer's GraphQL documents, each with the types of its variables and of its result written by hand
 * beside it. test/explorer-documents.test.ts validates every document against schema.graphql, and checks with
 * the TypeScript compiler that each result and variables type has exactly the fields the document selects and
 * declares, null where the schema allows it, and each scalar and enum as the JSON value it arrives as.
 */

/** A document and, as phantom types, what it takes and what it answers. */
export interface Document<Result, Variables> {
  readonly name: string;
  readonly source: string;
  /** Never set: carries the types to the client's request functions. */
  readonly types?: { result: Result; variables: Variables };
}

const document = <Result, Variables>(name: string, source: string): Document<Result, Variables> => ({ name, source });

export type OrderStatus =
  | 'PENDING'
  | 'SOURCE_CREATED'
  | 'DESTINATION_CREATED'
  | 'DESTINATION_CLAIMED'
  | 'COMPLETED'
  | 'REFUNDING'
  | 'CANCELLED'
  | 'EXPIRED';

export interface IntentSummary {
  chain: string;
  asset: string;
  amount: string;
}

export interface OrderSummary {
  orderId: string;
  userId: string;
  status: OrderStatus;
  createdAt: string;
  sourceIntent: IntentSummary;
  destinationIntent: IntentSummary;
}

export interface IntentDetail extends IntentSummary {
  swapId: string;
  creator: string;
  recipient: string;
  cancelAfter: number;
  createTxHash: string | null;
  createBlockNumber: number | null;
  createTimestamp: string | null;
  claimTxHash: string | null;
  claimBlockNumber: number | null;
  claimTimestamp: string | null;
  cancelTxHash: string | null;
  cancelBlockNumber: number | null;
  cancelTimestamp: string | null;
  bridgeTxHash: string | null;
}

export interface OrderDetail {
  orderId: string;
  userId: string;
  status: OrderStatus;
  createdAt: string;
  updatedAt: string;
  sourceIntent: IntentDetail;
  destinationIntent: IntentDetail;
}

export interface RelayerClaim {
  status: 'QUEUED' | 'SUBMITTED' | 'CONFIRMED' | 'FAILED';
  chain: string;
  txHash: string | null;
  attempts: number;
  lastError: string | null;
  updatedAt: string;
}

export interface OrderPage {
  total: number;
  page: number;
  totalPages: number;
  data: OrderSummary[];
}

export interface StatsWindow {
  totalOrders: number;
  completedOrders: number;
  inProgressOrders: number;
  cancelledOrders: number;
  totalVolumeUsd: number;
  uniqueUsers: number;
}

export interface StatsPoint {
  start: string;
  totalOrders: number;
  completedOrders: number;
  cancelledOrders: number;
  volumeUsd: number;
}

export type StatsInterval = 'HOUR' | 'DAY';

const INTENT_SUMMARY = 'chain asset amount';
const ORDER_SUMMARY = `orderId userId status createdAt sourceIntent { ${INTENT_SUMMARY} } destinationIntent { ${INTENT_SUMMARY} }`;
const INTENT_DETAIL = `${INTENT_SUMMARY} swapId creator recipient cancelAfter
  createTxHash createBlockNumber createTimestamp
  claimTxHash claimBlockNumber claimTimestamp
  cancelTxHash cancelBlockNumber cancelTimestamp
  bridgeTxHash`;
const ORDER_DETAIL = `orderId userId status createdAt updatedAt
  sourceIntent { ${INTENT_DETAIL} }
  destinationIntent { ${INTENT_DETAIL} }`;
const CLAIM = 'status chain txHash attempts lastError updatedAt';
const PAGE = `total page totalPages data { ${ORDER_SUMMARY} }`;
const WINDOW = 'totalOrders completedOrders inProgressOrders cancelledOrders totalVolumeUsd uniqueUsers';

/** The order and its relayer claim; each is null with a NOT_FOUND error when there is none. */
export const ORDER_DETAIL_QUERY = document<{ order: OrderDetail | null; claim: RelayerClaim | null }, { orderId: string }>(
  'OrderDetail',
  `query OrderDetail($orderId: String!) {
  order(orderId: $orderId) { ${ORDER_DETAIL} }
  claim(orderId: $orderId) { ${CLAIM} }
}`,
);

export const CLAIM_QUERY = document<{ claim: RelayerClaim | null }, { orderId: string }>(
  'OrderClaim',
  `query OrderClaim($orderId: String!) { claim(orderId: $orderId) { ${CLAIM} } }`,
);

export const ORDER_UPDATED_SUBSCRIPTION = document<{ orderUpdated: OrderDetail }, { orderId: string }>(
  'OrderUpdated',
  `subscription OrderUpdated($orderId: String!) { orderUpdated(orderId: $orderId) { ${ORDER_DETAIL} } }`,
);

/** At most this many orders per lookup; a transaction or swap id belongs to one or two orders. */
export const LOOKUP_LIMIT = 100;

export const ORDERS_BY_IDS_QUERY = document<{ orders: OrderPage }, { ids: string[] }>(
  'OrdersByIds',
  `query OrdersByIds($ids: [String!]!) { orders(filter: { ids: $ids }, limit: ${LOOKUP_LIMIT}) { ${PAGE} } }`,
);

export const ORDERS_BY_TX_QUERY = document<{ orders: OrderPage }, { txHash: string }>(
  'OrdersByTransaction',
  `query OrdersByTransaction($txHash: String!) { orders(filter: { txHash: $txHash }, limit: ${LOOKUP_LIMIT}) { ${PAGE} } }`,
);

export const ORDERS_BY_SWAP_QUERY = document<{ orders: OrderPage }, { swapId: string }>(
  'OrdersBySwap',
  `query OrdersBySwap($swapId: String!) { orders(filter: { swapId: $swapId }, limit: ${LOOKUP_LIMIT}) { ${PAGE} } }`,
);

export const USER_ORDERS_QUERY = document<{ ordersByUser: OrderPage }, { userId: string; page: number; limit: number }>(
  'UserOrders',
  `query UserOrders($userId: String!, $page: Int!, $limit: Int!) { ordersByUser(userId: $userId, page: $page, limit: $limit) { ${PAGE} } }`,
);

export interface StatsResult {
  stats: {
    computedAt: string;
    allTime: StatsWindow;
    last24h: StatsWindow;
    last7d: StatsWindow;
    topChainPairs: { sourceChain: string; destChain: string; orderCount: number; volumeUsd: number }[];
    topAssets: { asset: string; symbol: string; orderCount: number; volumeUsd: number }[];
    series: StatsPoint[];
  };
}

export const STATS_QUERY = document<StatsResult, { interval: StatsInterval; last: number }>(
  'ExplorerStats',
  `query ExplorerStats($interval: StatsInterval!, $last: Int!) {
  stats {
    computedAt
    allTime { ${WINDOW} }
    last24h { ${WINDOW} }
    last7d { ${WINDOW} }
    topChainPairs { sourceChain destChain orderCount volumeUsd }
    topAssets { asset symbol orderCount volumeUsd }
    series(interval: $interval, last: $last) { start totalOrders completedOrders cancelledOrders volumeUsd }
  }
}`,
);

/** Every document, for the test that validates them against the schema. */
export const DOCUMENTS = [
  ORDER_DETAIL_QUERY,
  CLAIM_QUERY,
  ORDER_UPDATED_SUBSCRIPTION,
  ORDERS_BY_IDS_QUERY,
  ORDERS_BY_TX_QUERY,
  ORDERS_BY_SWAP_QUERY,
  USER_ORDERS_QUERY,
  STATS_QUERY,
] as const;
