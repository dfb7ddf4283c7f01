import { startCluster } from './topology.ts';

/**
 * `npm run cluster`: starts the deployment topology of README "Deployment" on loopback, prints its URLs,
 * and stops every process (and removes its folder) on Ctrl-C or SIGTERM. KEEP_CLUSTER_DIR=1 keeps the
 * folder (configurations and logs) after the stop.
 */
const started = Date.now();
const cluster = await startCluster({ log: (line) => console.log(`  ${line}`), keepDir: process.env.KEEP_CLUSTER_DIR === '1' });
console.log(`\ncluster up in ${((Date.now() - started) / 1000).toFixed(1)} s\n${cluster.describe()}\n\nCtrl-C stops everything.`);

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping`);
  await cluster.stop();
  process.exit(0);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGHUP', () => void stop('SIGHUP'));
// Keep the event loop alive until a signal.
setInterval(() => undefined, 1 << 30);
