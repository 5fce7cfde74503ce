// A forwarder's shipping half in a child process, for the crash case of the conformance suite: it ships one sink in
// small batches and, after the sink acknowledged the first batch it writes, says "WROTE <toSeq>" and waits to be
// killed (kill -9) before the local cursor moves. Arguments: <home> <sink url> <cwd> <rows per batch>.
import { openDataset } from '../../sqlite/dataset.js';
import { machineOrigin } from '../origin.js';
import { createRemoteSink } from '../registry.js';
import { Shipper } from '../shipper.js';

const [home, url, cwd, rows] = process.argv.slice(2) as [string, string, string, string];
const db = openDataset(home);
const sink = await createRemoteSink(url, { home, cwd });
const shipper = new Shipper({
  db, sinks: [sink], origin: machineOrigin(home), limits: { rows: Number(rows) },
  say: (line) => process.stderr.write(`${line}\n`),
  afterWrite: async (_sink, batch) => {
    process.stdout.write(`WROTE ${batch.fromSeq} ${batch.toSeq}\n`);
    // Waits for the kill with a timer holding the event loop: a bare pending promise lets node exit by itself (code
    // 13, an unsettled top-level await) once nothing else is pending, which raced the parent's SIGKILL.
    await new Promise(() => setInterval(() => undefined, 60_000));
  },
});
const [result] = await shipper.shipAll();
process.stdout.write(`DONE ${JSON.stringify(result)}\n`);
await shipper.close();
db.close();
