// Loaded with `--import` into a real `hermetic backfill` / `forward` process by the crash tests, so they know where
// each SIGKILL landed. It changes nothing the forwarder does: it wraps better-sqlite3's `transaction()` on the
// dataset's writable connection and reports, one line per event on the file descriptor named by
// HERMETIC_PROBE_FD (without it, the probe does nothing):
//   open                        the dataset is open (the sink is made; the store is read next)
//   begin <writes> <final>      a batch is about to be written (BEGIN IMMEDIATE … COMMIT follows)
//   commit <writes> <final>     that batch is committed; final is 1 for a pass's last batch (it sets last_tick_at)
// With HERMETIC_PROBE_GATE=1 it also loads the command's modules ahead (dist/bundle/main.js beside the bin, else
// dist/cli/main.js: the module the bin runs), reports `ready`, and holds the bin back until SIGUSR2: a crash test
// starts the next process while the current one runs, so node's start-up is not paid between a kill and the restart.
// With HERMETIC_PROBE_HOLD_FINAL=1 the pass's last batch, its rows written, waits inside its transaction (before the
// COMMIT) for the SIGKILL the test sends once it sees that batch begin: a killed backfill never finishes, so every
// kill lands mid-run however fast or slow the machine is (the wait ends by itself after two minutes).
// With HERMETIC_PROBE_HOLD_FIRST=FILE the first batch, once committed, waits until FILE exists (made by the test after
// it sent its signal; two minutes at most): a signal sent on that batch's commit is then always taken before the next
// batch, however fast the rest of the pass would have gone.
// Plain JavaScript: the bin the tests run is built JavaScript (test/support/cli-build.ts), started without tsx.
import { existsSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const fd = Number(process.env.HERMETIC_PROBE_FD ?? '');
if (Number.isInteger(fd) && fd > 2) {
  const emit = (line) => {
    try {
      writeSync(fd, `${line}\n`);
    } catch { /* the test stopped listening */ }
  };
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const original = Database.prototype.transaction;
  let opened = false;
  const holdFinal = process.env.HERMETIC_PROBE_HOLD_FINAL === '1';
  let holdFirst = process.env.HERMETIC_PROBE_HOLD_FIRST || null;
  const sleep = new Int32Array(new SharedArrayBuffer(4));
  Database.prototype.transaction = function transaction(fn) {
    // The dataset, or a first dataset being built aside (hermetic.db.build-<pid>-<n>, decision 0058).
    if (this.readonly || !/(^|[\\/])hermetic\.db(\.build-\d+-\d+)?$/.test(this.name)) return original.call(this, fn);
    let holding = false;
    const tx = original.call(this, function (...args) {
      const out = fn.apply(this, args);
      if (holding) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000);
      return out;
    });
    if (!opened) {
      opened = true;
      emit('open');
    }
    const wrap = (inner) => function (...args) {
      const batch = args[0];
      const what = batch && Array.isArray(batch.writes) ? `${batch.writes.length} ${batch.store?.last_tick_at == null ? 0 : 1}` : 'other';
      emit(`begin ${what}`);
      holding = holdFinal && what.endsWith(' 1');
      const out = inner.apply(this, args);
      emit(`commit ${what}`);
      if (holdFirst !== null && what !== 'other') {
        const until = Date.now() + 120_000;
        while (!existsSync(holdFirst) && Date.now() < until) Atomics.wait(sleep, 0, 0, 5);
        holdFirst = null;
      }
      return out;
    };
    const wrapped = wrap(tx);
    wrapped.deferred = wrap(tx.deferred);
    wrapped.immediate = wrap(tx.immediate);
    wrapped.exclusive = wrap(tx.exclusive);
    return wrapped;
  };
}

if (Number.isInteger(fd) && fd > 2 && process.env.HERMETIC_PROBE_GATE === '1') {
  let go = false;
  let release = () => {};
  const onGo = () => { go = true; release(); };
  process.on('SIGUSR2', onGo);
  const bundled = new URL('../dist/bundle/main.js', pathToFileURL(process.argv[1]));
  await import((existsSync(bundled) ? bundled : new URL('../dist/cli/main.js', pathToFileURL(process.argv[1]))).href);
  writeSync(fd, 'ready\n');
  if (!go) {
    // Waiting keeps the process alive; a test that went away without letting it go takes it along.
    const parent = process.ppid;
    const watch = setInterval(() => {
      try {
        process.kill(parent, 0);
      } catch {
        process.exit(1);
      }
    }, 250);
    await new Promise((resolve) => { release = resolve; });
    clearInterval(watch);
  }
  process.off('SIGUSR2', onGo);
}
