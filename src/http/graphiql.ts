/** What GraphiQL opens with: a query that answers on an empty book too, and points at the rest. */
export const GRAPHIQL_EXAMPLE = `# The order book's GraphQL API. Press the run button (or Ctrl-Enter).
# Every type and field is described in the Documentation Explorer (the book icon, top left).
query LatestOrders {
  orders(limit: 5) {
    total
    data {
      orderId
      status
      sourceIntent { chain asset amount }
      destinationIntent { chain asset amount }
      createdAt
    }
  }
  stats {
    last24h { totalOrders completedOrders totalVolumeUsd }
  }
  assets { id symbol decimals priceUsd }
}

# Next: createQuote, then createOrder with the quote's amounts (see the README's curl walk-through),
# and follow an order live with: subscription { orderUpdated(orderId: "...") { status updatedAt } }
`;
