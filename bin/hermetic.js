#!/usr/bin/env node
// The `hermetic` command: runs the compiled CLI (built by `npm install` through the prepare script). SIGINT and SIGTERM
// are held from this first line on, before the CLI's modules load, so a signal at any moment after start-up reaches
// the command: `serve` and `forward` stop cleanly (exit 0), the others end by the signal (src/cli/stop-signals.ts).
import { holdStopSignals } from '../dist/cli/stop-signals.js';

holdStopSignals();
const { main } = await import('../dist/cli/main.js');
main(process.argv.slice(2)).then((code) => { if (typeof code === 'number') process.exitCode = code; });
