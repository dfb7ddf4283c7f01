// Hardhat 2 network for the EVM tests: a local node whose chain id comes from the environment.
// Nothing is compiled by Hardhat (the tests compile with solc-js), so it never downloads a compiler.
module.exports = {
  paths: { root: __dirname, sources: __dirname + '/contracts-none', cache: __dirname + '/.hardhat-cache' },
  networks: {
    hardhat: {
      chainId: Number(process.env.EVM_TEST_CHAIN_ID || 31337),
      // Blocks are mined per transaction; tests mine empty blocks themselves (evm_mine).
      mining: { auto: true },
      accounts: { count: 10 },
      loggingEnabled: false,
    },
  },
};
