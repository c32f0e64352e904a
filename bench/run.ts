/**
 * `npm run bench`: every benchmark, figures and ratios printed as Markdown tables (docs/performance.md
 * records them). BENCH_SCALE=0.2 for a quick run; BENCH_ONLY=event-store,chain,confirm,http,spends,group-limits,server,rebuild,webhooks,audit,preview,retention
 * to choose. The soak (`BENCH_ONLY=soak`, an hour by default: SOAK_MINUTES, SOAK_RATE) runs only when
 * named, never in `npm run bench` alone.
 */
import { cpus } from 'node:os';
import { auditBench } from './audit.bench';
import { previewBench } from './preview.bench';
import { chainBench } from './chain.bench';
import { confirmBench } from './confirm.bench';
import { eventStoreBench } from './event-store.bench';
import { groupLimitsBench } from './group-limits.bench';
import { httpBench } from './http.bench';
import { rebuildBench } from './rebuild.bench';
import { retentionBench } from './retention.bench';
import { serverBench } from './server.bench';
import { soakBench } from './soak.bench';
import { spendsBench } from './spends.bench';
import { bullmqAlone, deliveryWorker } from './delivery-worker.bench';
import { webhooksBench } from './webhooks.bench';

const all: Record<string, () => Promise<string>> = {
  'event-store': eventStoreBench,
  chain: chainBench,
  confirm: confirmBench,
  http: httpBench,
  spends: spendsBench,
  'group-limits': groupLimitsBench,
  server: serverBench,
  rebuild: rebuildBench,
  webhooks: () => webhooksBench([deliveryWorker, bullmqAlone]),
  audit: auditBench,
  preview: previewBench,
  retention: retentionBench,
  soak: soakBench,
};
/** Run only when BENCH_ONLY names them: they take an hour. */
const onlyWhenNamed = new Set(['soak']);

async function main() {
  const only = process.env.BENCH_ONLY?.split(',');
  console.log(`node ${process.version}, ${cpus().length} cores, BENCH_SCALE=${process.env.BENCH_SCALE ?? 1}`);
  for (const [name, bench] of Object.entries(all)) {
    if (only ? !only.includes(name) : onlyWhenNamed.has(name)) continue;
    console.log(`\n== ${name}`);
    await bench();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
