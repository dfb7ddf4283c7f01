/**
 * What the domain announces after a change is committed: which order changed, and whose it is.
 * The GraphQL layer turns these into subscription events (src/schema/pubsub.ts); with Redis they
 * reach subscribers on every instance.
 */
export interface OrderChange {
  orderId: string;
  userId: string;
}

export interface OrderEvents {
  orderChanged(change: OrderChange): void;
}
