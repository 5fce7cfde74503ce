// Runs the test files named on its command line, each in a process of its own, N at a time, in the order given
// (`node --test FILES` would sort them by path, so the longest could start last), with node:test's run() and the spec
// reporter. The processes inherit this one's node flags (--import tsx, the contract check). Started by
// scripts/run-tests.mjs: node [flags] scripts/test-processes.mjs N [--times FILE] FILE...
import { createWriteStream } from 'node:fs';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { sourceLocations } from './test-locations.mjs';
import testTimes from './test-times.mjs';

const argv = process.argv.slice(2);
const concurrency = Number(argv.shift());
const times = argv[0] === '--times' ? (argv.shift(), argv.shift()) : null;

const stream = run({ files: argv, concurrency });
stream.on('test:fail', () => {
  process.exitCode = 1;
});
// A failure's stack names the TypeScript lines, mapped here rather than in the test processes (decision 0127).
stream.compose(spec).compose(sourceLocations).pipe(process.stdout);
if (times) stream.compose(testTimes).pipe(createWriteStream(times));
