import { parse, type DocumentNode } from 'graphql';

/**
 * The fixed GraphQL documents behind the REST paths. Aliases give the REST API's snake_case names, so a
 * REST response is a GraphQL result with the envelope around it. Parsed once at start-up and
 * validated against the schema by test/schema.test.ts.
 */

const INTENT_FIELDS = /* GraphQL */ `
  fragment IntentFields on Intent {
    swap_id: swapId chain asset token_address: tokenAddress creator recipient amount
    commitment_hash: commitmentHash commitment cancel_after: cancelAfter registry_address: registryAddress
    create_tx_hash: createTxHash create_block_number: createBlockNumber create_timestamp: createTimestamp
    claim_tx_hash: claimTxHash claim_block_number: claimBlockNumber claim_timestamp: claimTimestamp
    cancel_tx_hash: cancelTxHash cancel_block_number: cancelBlockNumber cancel_timestamp: cancelTimestamp
    l1_hop: l1Hop hop_bridge_factory: hopBridgeFactory hop_dest_blockchain_id: hopDestBlockchainId
    hop_recipient: hopRecipient hop_fee_token: hopFeeToken hop_relayer_fee: hopRelayerFee
    final_chain: finalChain final_token_address: finalTokenAddress bridge_tx_hash: bridgeTxHash
    created_at: createdAt updated_at: updatedAt
  }`;

const ORDER_FIELDS = /* GraphQL */ `
  fragment OrderFields on Order {
    order_id: orderId user_id: userId quote_id: quoteId status
    source_token_price: sourceTokenPrice dest_token_price: destTokenPrice fee_bips: feeBips
    source_intent: sourceIntent { ...IntentFields }
    destination_intent: destinationIntent { ...IntentFields }
    created_at: createdAt updated_at: updatedAt
  }
  ${INTENT_FIELDS}`;

const PAGE_FIELDS = /* GraphQL */ `
  fragment PageFields on OrderPage {
    data { ...OrderFields } page limit total total_pages: totalPages
  }
  ${ORDER_FIELDS}`;

const QUOTE_FIELDS = /* GraphQL */ `
  fragment QuoteFields on Quote {
    quote_id: quoteId source { asset amount } destination { asset amount }
    source_token_price: sourceTokenPrice dest_token_price: destTokenPrice fee_bips: feeBips
    solver expires_at: expiresAt created_at: createdAt consumed_by: consumedBy
  }`;

const WINDOW_FIELDS = /* GraphQL */ `
  fragment WindowFields on StatsWindow {
    total_orders: totalOrders completed_orders: completedOrders in_progress_orders: inProgressOrders
    cancelled_orders: cancelledOrders unique_users: uniqueUsers total_volume_usd: totalVolumeUsd
    avg_completion_time_secs: avgCompletionTimeSecs
  }`;

const CLAIM_FIELDS = /* GraphQL */ `
  fragment ClaimFields on RelayerClaim {
    order_id: orderId status chain tx_hash: txHash attempts last_error: lastError
    created_at: createdAt updated_at: updatedAt
  }`;

const WEBHOOK_FIELDS = /* GraphQL */ `
  fragment WebhookFields on WebhookEndpoint {
    id url events users chains enabled disabled_at: disabledAt disabled_reason: disabledReason
    failing_since: failingSince previous_secret_expires_at: previousSecretExpiresAt created_at: createdAt
  }`;

const DELIVERY_FIELDS = /* GraphQL */ `
  fragment DeliveryFields on WebhookDelivery {
    id event_id: eventId event_type: eventType order_id: orderId state attempts next_attempt_at: nextAttemptAt
    last_status: lastStatus last_error: lastError created_at: createdAt delivered_at: deliveredAt
    attempt_log: attemptLog {
      attempt started_at: startedAt status_code: statusCode latency_ms: latencyMs error response
    }
  }`;

const source = {
  createWebhookEndpoint: /* GraphQL */ `
    mutation CreateWebhookEndpoint($input: CreateWebhookEndpointInput!) {
      createWebhookEndpoint(input: $input) { secret endpoint { ...WebhookFields } }
    }
    ${WEBHOOK_FIELDS}`,
  webhookEndpoints: /* GraphQL */ `
    query WebhookEndpoints { webhookEndpoints { ...WebhookFields } }
    ${WEBHOOK_FIELDS}`,
  deleteWebhookEndpoint: /* GraphQL */ `
    mutation DeleteWebhookEndpoint($id: String!) { deleteWebhookEndpoint(id: $id) { ...WebhookFields } }
    ${WEBHOOK_FIELDS}`,
  rotateWebhookSecret: /* GraphQL */ `
    mutation RotateWebhookSecret($input: RotateWebhookSecretInput!) {
      rotateWebhookSecret(input: $input) { secret endpoint { ...WebhookFields } }
    }
    ${WEBHOOK_FIELDS}`,
  webhookDeliveries: /* GraphQL */ `
    query WebhookDeliveries($endpointId: String!, $limit: Int) {
      webhookDeliveries(endpointId: $endpointId, limit: $limit) { ...DeliveryFields }
    }
    ${DELIVERY_FIELDS}`,
  redeliverWebhook: /* GraphQL */ `
    mutation RedeliverWebhook($input: RedeliverWebhookInput!) { redeliverWebhook(input: $input) { ...DeliveryFields } }
    ${DELIVERY_FIELDS}`,
  recordEscrowEvent: /* GraphQL */ `
    mutation RecordEscrowEvent($input: RecordEscrowEventInput!) {
      recordEscrowEvent(input: $input) { ...OrderFields }
    }
    ${ORDER_FIELDS}`,
  submitClaim: /* GraphQL */ `
    mutation SubmitClaim($input: SubmitClaimInput!) { submitClaim(input: $input) { ...ClaimFields } }
    ${CLAIM_FIELDS}`,
  claim: /* GraphQL */ `
    query Claim($orderId: String!) { claim(orderId: $orderId) { ...ClaimFields } }
    ${CLAIM_FIELDS}`,
  createOrder: /* GraphQL */ `
    mutation CreateOrder($input: CreateOrderInput!) {
      createOrder(input: $input) { replayed order { ...OrderFields } }
    }
    ${ORDER_FIELDS}`,
  order: /* GraphQL */ `
    query Order($orderId: String!) { order(orderId: $orderId) { ...OrderFields } }
    ${ORDER_FIELDS}`,
  orders: /* GraphQL */ `
    query Orders($page: Int, $limit: Int, $filter: OrderFilter) {
      orders(page: $page, limit: $limit, filter: $filter) { ...PageFields }
    }
    ${PAGE_FIELDS}`,
  ordersByUser: /* GraphQL */ `
    query OrdersByUser($userId: String!, $page: Int, $limit: Int) {
      ordersByUser(userId: $userId, page: $page, limit: $limit) { ...PageFields }
    }
    ${PAGE_FIELDS}`,
  ordersExport: /* GraphQL */ `
    query OrdersExport($first: Int!, $after: String, $filter: OrderFilter, $userId: String) {
      ordersConnection(first: $first, after: $after, filter: $filter, userId: $userId) {
        pageInfo { hasNextPage endCursor }
        edges { node { ...OrderFields } }
      }
    }
    ${ORDER_FIELDS}`,
  stats: /* GraphQL */ `
    query Stats {
      stats {
        all_time: allTime { ...WindowFields }
        last_24h: last24h { ...WindowFields }
        last_7d: last7d { ...WindowFields }
        top_chain_pairs: topChainPairs {
          source_chain: sourceChain dest_chain: destChain order_count: orderCount volume_usd: volumeUsd
        }
        top_assets: topAssets { asset symbol order_count: orderCount volume_usd: volumeUsd }
      }
    }
    ${WINDOW_FIELDS}`,
  statsSeries: /* GraphQL */ `
    query StatsSeries($interval: StatsInterval!, $last: Int!) {
      stats {
        series(interval: $interval, last: $last) {
          start total_orders: totalOrders completed_orders: completedOrders cancelled_orders: cancelledOrders
          volume_usd: volumeUsd
        }
      }
    }`,
  createQuote: /* GraphQL */ `
    mutation CreateQuote($input: CreateQuoteInput!) { createQuote(input: $input) { ...QuoteFields } }
    ${QUOTE_FIELDS}`,
  quote: /* GraphQL */ `
    query Quote($quoteId: String!) { quote(quoteId: $quoteId) { ...QuoteFields } }
    ${QUOTE_FIELDS}`,
  assets: /* GraphQL */ `
    query Assets {
      assets {
        id chain symbol decimals token_address: tokenAddress min_amount: minAmount
        max_amount: maxAmount price_usd: priceUsd
      }
    }`,
  chains: /* GraphQL */ `
    query Chains {
      chains {
        id name kind network chain_id: chainId solver registry_address: registryAddress
        source_timelock_secs: sourceTimelockSecs destination_timelock_secs: destinationTimelockSecs
      }
    }`,
} as const;

export type DocumentName = keyof typeof source;

export const documents = Object.fromEntries(Object.entries(source).map(([name, text]) => [name, parse(text)])) as Record<
  DocumentName,
  DocumentNode
>;
