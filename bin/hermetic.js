#!/usr/bin/env node
// The `hermetic` command: runs the compiled CLI (built by `npm install` through the prepare script).
import { main } from '../dist/cli/main.js';
main(process.argv.slice(2)).then((code) => { if (typeof code === 'number') process.exitCode = code; });
