import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
// solc-js ships its compiler as WebAssembly: nothing is downloaded.
import solc from 'solc';

/**
 * Compiles test/evm/contracts/TestEscrow.sol with solc-js. The output is committed
 * (test/evm/build/TestEscrow.json) so tests do not pay for the compiler; a test recompiles and
 * compares. Rebuild: `npx tsx test/evm/build-escrow.ts`.
 */

export const SOURCE_FILE = fileURLToPath(new URL('./contracts/TestEscrow.sol', import.meta.url));
export const BUILD_FILE = fileURLToPath(new URL('./build/TestEscrow.json', import.meta.url));

export interface EscrowBuild {
  compiler: string;
  abi: unknown[];
  bytecode: `0x${string}`;
}

export function compileTestEscrow(): EscrowBuild {
  const input = {
    language: 'Solidity',
    sources: { 'TestEscrow.sol': { content: readFileSync(SOURCE_FILE, 'utf8') } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      // Hardhat 2's default hardfork understands everything up to cancun.
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const contract = output.contracts['TestEscrow.sol']!.TestEscrow!;
  return { compiler: solc.version(), abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}

export function loadTestEscrow(): EscrowBuild {
  return JSON.parse(readFileSync(BUILD_FILE, 'utf8')) as EscrowBuild;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  mkdirSync(new URL('./build/', import.meta.url), { recursive: true });
  writeFileSync(BUILD_FILE, `${JSON.stringify(compileTestEscrow(), null, 2)}\n`);
  process.stdout.write(`wrote ${BUILD_FILE}\n`);
}
