// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// A minimal hash-time-locked escrow implementing the interface the order book watches
/// (src/chains/evm/escrow-abi.ts). Test-only: the product never deploys it. Native coin only:
/// `token` must be the zero address and `amount` must equal msg.value.
contract TestEscrow {
    enum State { None, Open, Claimed, Cancelled }

    struct Swap {
        address creator;
        address recipient;
        address token;
        uint256 amount;
        bytes32 commitmentHash;
        uint256 cancelAfter;
        State state;
    }

    mapping(bytes32 => Swap) public swaps;

    event Created(
        bytes32 indexed swapId,
        address indexed creator,
        address indexed recipient,
        address token,
        uint256 amount,
        bytes32 commitmentHash,
        uint256 cancelAfter
    );
    event Claimed(bytes32 indexed swapId, bytes32 secret);
    event Cancelled(bytes32 indexed swapId);

    function create(
        bytes32 swapId,
        address recipient,
        address token,
        uint256 amount,
        bytes32 commitmentHash,
        uint256 cancelAfter
    ) external payable {
        require(swaps[swapId].state == State.None, "swap exists");
        require(token == address(0), "native coin only");
        require(amount > 0 && msg.value == amount, "amount must equal msg.value");
        require(cancelAfter > block.timestamp, "cancelAfter in the past");
        swaps[swapId] = Swap(msg.sender, recipient, token, amount, commitmentHash, cancelAfter, State.Open);
        emit Created(swapId, msg.sender, recipient, token, amount, commitmentHash, cancelAfter);
    }

    function claim(bytes32 swapId, bytes32 secret) external {
        Swap storage s = swaps[swapId];
        require(s.state == State.Open, "not open");
        require(block.timestamp < s.cancelAfter, "expired");
        require(sha256(abi.encodePacked(secret)) == s.commitmentHash, "wrong secret");
        s.state = State.Claimed;
        emit Claimed(swapId, secret);
        (bool ok, ) = s.recipient.call{value: s.amount}("");
        require(ok, "payout failed");
    }

    function cancel(bytes32 swapId) external {
        Swap storage s = swaps[swapId];
        require(s.state == State.Open, "not open");
        require(block.timestamp >= s.cancelAfter, "not expired");
        s.state = State.Cancelled;
        emit Cancelled(swapId);
        (bool ok, ) = s.creator.call{value: s.amount}("");
        require(ok, "refund failed");
    }
}
