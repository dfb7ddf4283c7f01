import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
const BTC_ADDRESS = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
const EVM_ADDRESS = '0x4c1a6f5963Caa654d1D7C6D76F9d34aE10C86cb3';
const port = Number(process.env.PORT ?? 4500);
const run = (duration: number) => autocannon({ url: `http://127.0.0.1:${port}`, connections: 10, duration, requests: [
    { method: 'POST', path: '/quotes', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ source: { asset: 'bitcoin:btc', amount: '1000000' }, destination: { asset: 'ethereum:wbtc' } }),
      onResponse: (_s, body, context) => void (context.quote = JSON.parse(body).result) },
    { method: 'POST', path: '/orders', headers: { 'content-type': 'application/json' },
      setupRequest: (req, context) => { const quote = context.quote as any; return { ...req, body: JSON.stringify({
            user_id: `bench-${randomBytes(3).toString('hex')}`, quote_id: quote.quote_id,
            source: { asset: 'bitcoin:btc', recipient: BTC_ADDRESS, amount: '1000000' },
            destination: { asset: 'ethereum:wbtc', recipient: EVM_ADDRESS, amount: quote.destination.amount },
            commitment_hash: randomBytes(32).toString('hex') }) }; } },
  ] });
await run(3);
const r = await run(Number(process.env.SECS ?? 10));
console.log(`pairs/s ${(r.requests.average / 2).toFixed(1)} p50 ${r.latency.p50} p99 ${r.latency.p99} non2xx ${r.non2xx}`);
