// One forwarder's shipping in a child process, for the fleet tests: optionally a backfill of its store first, then
// the shipper into the sink URL until it is caught up, retrying while the server is away. It says "WROTE from to"
// after each batch the sink acknowledged (before the local cursor moves), "RETRYING" when a batch failed and waits,
// and "DONE" at the end. Argument: a JSON object { home, dir, stateDb, url, rows, backfill }.
import { createForwarder } from '../../../pipeline/forwarder.js';
import { machineOrigin } from '../../remote/origin.js';
import { createRemoteSink } from '../../remote/registry.js';
import { Shipper } from '../../remote/shipper.js';
import { openDataset } from '../../sqlite/dataset.js';

const o = JSON.parse(process.argv[2]!) as { home: string; dir: string; stateDb: string; url: string; rows: number; backfill: boolean };
if (o.backfill) {
  const forwarder = createForwarder({ userHome: o.dir, hermesHome: undefined, home: o.home, stateDbs: [o.stateDb], readWorker: 'off' });
  forwarder.backfill();
  forwarder.close();
}
const db = openDataset(o.home);
const sink = await createRemoteSink(o.url, { home: o.home, cwd: o.dir });
const shipper = new Shipper({
  db, sinks: [sink], origin: machineOrigin(o.home), limits: { rows: o.rows }, backoff: { baseMs: 20, maxMs: 200 },
  say: (line) => process.stderr.write(`${line}\n`),
  afterWrite: (_sink, batch) => { process.stdout.write(`WROTE ${batch.fromSeq} ${batch.toSeq}\n`); },
});
for (;;) {
  const [r] = await shipper.shipAll();
  if (r!.state === 'caught-up') break;
  if (r!.state === 'stopped') {
    process.stdout.write(`STOPPED ${JSON.stringify(r!.error)}\n`);
    process.exit(3);
  }
  if (r!.state === 'retrying' || r!.state === 'waiting') {
    process.stdout.write('RETRYING\n');
    await new Promise((resolve) => setTimeout(resolve, Math.max(5, (r!.retryAt ?? 0) * 1000 - Date.now())));
  }
}
process.stdout.write('DONE\n');
await shipper.close();
db.close();
