// Hardhat 2 network for the EVM tests: a local node whose chain id comes from the environment.
// Nothing is compiled by Hardhat (the tests compile with solc-js), so it never downloads a compiler.
const blockMs = Number(process.env.EVM_TEST_BLOCK_MS || 0);

module.exports = {
  paths: { root: __dirname, sources: `${__dirname}/contracts-none`, cache: `${__dirname}/.hardhat-cache` },
  networks: {
    hardhat: {
      chainId: Number(process.env.EVM_TEST_CHAIN_ID || 31337),
      // One block per transaction, and with EVM_TEST_BLOCK_MS also one every that many ms, so
      // confirmations accrue as on a real chain.
      mining: blockMs > 0 ? { auto: true, interval: blockMs } : { auto: true },
      // Block times follow the wall clock even with blocks faster than one per second.
      allowBlocksWithSameTimestamp: true,
      loggingEnabled: false,
      // A reverted transaction is mined and reported in its receipt, as on a real chain.
      throwOnTransactionFailures: false,
    },
  },
};
