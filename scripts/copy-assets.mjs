// After `tsc -p tsconfig.build.json`: copies the files the built modules read beside themselves (the console's
// assets) from src/ into dist/, which tsc leaves out.
import { cpSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../', import.meta.url));
for (const dir of ['emulator/console/assets']) {
  cpSync(`${REPO}src/${dir}`, `${REPO}dist/${dir}`, { recursive: true });
}
