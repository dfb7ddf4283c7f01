import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
const BTC = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', EVM = '0x4c1a6f5963Caa654d1D7C6D76F9d34aE10C86cb3';
const reqs = [
  { method: 'POST', path: '/quotes', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ source: { asset: 'bitcoin:btc', amount: '1000000' }, destination: { asset: 'ethereum:wbtc' } }),
    onResponse: (s, b, c) => void (c.quote = JSON.parse(b).result) },
  { method: 'POST', path: '/orders', headers: { 'content-type': 'application/json' },
    setupRequest: (req, c) => ({ ...req, body: JSON.stringify({ user_id: `bench-${randomBytes(3).toString('hex')}`, quote_id: c.quote.quote_id,
      source: { asset: 'bitcoin:btc', recipient: BTC, amount: '1000000' }, destination: { asset: 'ethereum:wbtc', recipient: EVM, amount: c.quote.destination.amount },
      commitment_hash: randomBytes(32).toString('hex') }) }) },
];
const r = await autocannon({ url: process.argv[2], connections: 10, duration: Number(process.argv[3] ?? 10), requests: reqs });
console.log('pairs/s', (r.requests.average / 2).toFixed(0), 'non2xx', r.non2xx, 'p50', r.latency.p50, 'p99', r.latency.p99);
