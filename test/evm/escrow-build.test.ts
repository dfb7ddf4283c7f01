import { describe, expect, it } from 'vitest';
import { escrowAbi } from '../../src/chains/evm/escrow-abi.ts';
import { compileTestEscrow, loadTestEscrow } from './build-escrow.ts';

describe('the test escrow contract', () => {
  it('its committed build is what solc-js makes of the source (rebuild: npx tsx test/evm/build-escrow.ts)', () => {
    expect(compileTestEscrow()).toEqual(loadTestEscrow());
  });

  it('implements every function and event of the interface the product depends on', () => {
    const built = loadTestEscrow().abi as { type: string; name?: string; inputs?: unknown[]; outputs?: unknown[] }[];
    // What the encoding depends on: names of functions and events, parameter types, indexing.
    type Param = { type: string; indexed?: boolean };
    const shape = (item: { type: string; name?: string; inputs?: unknown[]; outputs?: unknown[] }) =>
      JSON.stringify({
        type: item.type,
        name: item.name,
        inputs: (item.inputs as Param[]).map(({ type, indexed }) => ({ type, indexed })),
        outputs: ((item.outputs ?? []) as Param[]).map(({ type }) => type),
      });
    const contract = new Set(built.filter((i) => i.type === 'function' || i.type === 'event').map(shape));
    for (const item of escrowAbi) expect(contract, `${item.type} ${item.name}`).toContain(shape(item as never));
  });
});
