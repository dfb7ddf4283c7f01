/** The GraphQL documents measured: ours, and the peer's (PostGraphile) for the same pages. */

const INTENT = `swapId chain asset tokenAddress creator recipient amount commitmentHash commitment cancelAfter
  registryAddress createTxHash createBlockNumber createTimestamp claimTxHash claimBlockNumber claimTimestamp
  cancelTxHash cancelBlockNumber cancelTimestamp l1Hop hopBridgeFactory hopDestBlockchainId hopRecipient hopFeeToken
  hopRelayerFee finalChain finalTokenAddress bridgeTxHash createdAt updatedAt`;
const PEER_ORDER = `id userId quoteId stage sourceTokenPrice destTokenPrice feeBips createdAt updatedAt
  intentBySourceSwapIdAndCreatedAt { ${INTENT} } intentByDestinationSwapIdAndCreatedAt { ${INTENT} }`;
const OURS_ORDER = `orderId userId quoteId status sourceTokenPrice destTokenPrice feeBips createdAt updatedAt
  sourceIntent { ${INTENT} } destinationIntent { ${INTENT} }`;

export const Q = {
  peerUserPage: `query($u: String!) { allOrders(condition: { userId: $u }, orderBy: [CREATED_AT_DESC, ID_DESC], first: 20) {
    totalCount nodes { ${PEER_ORDER} } } }`,
  oursStatusPage: `query { orders(filter: { status: [COMPLETED] }, limit: 20) { total data { ${OURS_ORDER} } } }`,
  peerStatusPage: `query { allOrders(condition: { stage: COMPLETED }, orderBy: [CREATED_AT_DESC, ID_DESC], first: 20) {
    totalCount nodes { ${PEER_ORDER} } } }`,
  peerKeyset: `query($after: Cursor!) { allOrders(orderBy: [CREATED_AT_DESC, ID_DESC], first: 20, after: $after) {
    nodes { ${PEER_ORDER} } pageInfo { endCursor } } }`,
  oursKeyset100: `query($after: String!) { ordersConnection(first: 100, after: $after) { edges { node { ${OURS_ORDER} } } pageInfo { endCursor } } }`,
  oursKeyset1: `query($after: String!) { ordersConnection(first: 1, after: $after) { edges { node { ${OURS_ORDER} } } pageInfo { endCursor } } }`,
};
