/**
 * The escrow interface the order book depends on, on every EVM chain. The product does not deploy
 * this contract: it watches its events (src/chains/evm/watcher.ts) and calls `claim` for users
 * (src/relayer/evm-adapter.ts). Any escrow with this ABI works; test/evm/contracts/TestEscrow.sol is
 * a minimal implementation for the tests.
 *
 * `swapId` is the intent's swap_id (deriveSwapId in src/domain/orders.ts) as bytes32; `token` is the
 * zero address for the chain's native coin; `claim` needs sha256(secret) == commitmentHash before
 * cancelAfter (UNIX seconds); `cancel` refunds the creator from cancelAfter on.
 */
export const escrowAbi = [
  {
    type: 'function',
    name: 'create',
    stateMutability: 'payable',
    inputs: [
      { name: 'swapId', type: 'bytes32' },
      { name: 'recipient', type: 'address' },
      { name: 'token', type: 'address' },
      { name: 'amount', type: 'uint256' },
      { name: 'commitmentHash', type: 'bytes32' },
      { name: 'cancelAfter', type: 'uint256' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'claim',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'swapId', type: 'bytes32' },
      { name: 'secret', type: 'bytes32' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'cancel',
    stateMutability: 'nonpayable',
    inputs: [{ name: 'swapId', type: 'bytes32' }],
    outputs: [],
  },
  {
    type: 'function',
    name: 'swaps',
    stateMutability: 'view',
    inputs: [{ name: 'swapId', type: 'bytes32' }],
    outputs: [
      { name: 'creator', type: 'address' },
      { name: 'recipient', type: 'address' },
      { name: 'token', type: 'address' },
      { name: 'amount', type: 'uint256' },
      { name: 'commitmentHash', type: 'bytes32' },
      { name: 'cancelAfter', type: 'uint256' },
      { name: 'state', type: 'uint8' },
    ],
  },
  {
    type: 'event',
    name: 'Created',
    anonymous: false,
    inputs: [
      { name: 'swapId', type: 'bytes32', indexed: true },
      { name: 'creator', type: 'address', indexed: true },
      { name: 'recipient', type: 'address', indexed: true },
      { name: 'token', type: 'address', indexed: false },
      { name: 'amount', type: 'uint256', indexed: false },
      { name: 'commitmentHash', type: 'bytes32', indexed: false },
      { name: 'cancelAfter', type: 'uint256', indexed: false },
    ],
  },
  {
    type: 'event',
    name: 'Claimed',
    anonymous: false,
    inputs: [
      { name: 'swapId', type: 'bytes32', indexed: true },
      { name: 'secret', type: 'bytes32', indexed: false },
    ],
  },
  {
    type: 'event',
    name: 'Cancelled',
    anonymous: false,
    inputs: [{ name: 'swapId', type: 'bytes32', indexed: true }],
  },
] as const;

/** The `state` returned by `swaps(swapId)`. */
export const EscrowState = { none: 0, open: 1, claimed: 2, cancelled: 3 } as const;
