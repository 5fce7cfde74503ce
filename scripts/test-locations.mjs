// Names the TypeScript lines in what the test reporter prints, in place of the bundles' (scripts/test-bundles.mjs).
// The test processes run without --enable-source-maps, which costs every process its bundles' maps read and parsed
// and every stack mapped as it is made: a tenth of the in-process tests' CPU (decision 0127). Only a failure prints a
// stack, so its locations are mapped here, in the runner, from the maps esbuild wrote beside each bundle.
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { relative, resolve } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** A location in a bundle of a run: `[file://][/…/].cache/test-bundles/<pid>/<path>.js:<line>[:<column>]`. */
const BUNDLED = /(?:file:\/\/)?((?:\/[^\s()'"`]*?\/)?\.cache\/test-bundles\/\d+\/[^\s()'"`:]+\.js):(\d+)(?::(\d+))?/g;

/**
 * Maps every bundle location in `text` to its source (`src/a.ts:12:3`, relative to `cwd`; a line without a column
 * stays without one); a location the maps do not cover stays as it is. `maps` caches each bundle's map (null: none).
 * @example mapLocations('at /r/.cache/test-bundles/9/src/a.test.js:5:3', new Map(), '/r') // 'at src/a.test.ts:4:1'
 */
export function mapLocations(text, maps, cwd = process.cwd()) {
  return text.replace(BUNDLED, (whole, found, line, column) => {
    const file = resolve(cwd, found);
    if (!maps.has(file)) {
      let map = null;
      try {
        if (existsSync(`${file}.map`)) map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
      } catch { /* an unreadable map: the location stays the bundle's */ }
      maps.set(file, map);
    }
    const entry = maps.get(file)?.findEntry(Number(line) - 1, column === undefined ? 0 : Number(column) - 1);
    if (!entry?.originalSource) return whole;
    // esbuild writes each source relative to the map's folder.
    const source = fileURLToPath(new URL(entry.originalSource, pathToFileURL(file)));
    return `${relative(cwd, source)}:${entry.originalLine + 1}${column === undefined ? '' : `:${entry.originalColumn + 1}`}`;
  });
}

/** A stage of the reporter's stream: its text (strings or bytes) with bundle locations mapped. */
export async function* sourceLocations(source) {
  const maps = new Map();
  // Bytes are decoded across chunks, so a character split between two is not lost.
  const bytes = new StringDecoder('utf8');
  for await (const chunk of source) {
    if (typeof chunk === 'string') yield mapLocations(chunk, maps);
    else if (Buffer.isBuffer(chunk)) yield mapLocations(bytes.write(chunk), maps);
    else yield chunk;
  }
  const rest = bytes.end();
  if (rest) yield mapLocations(rest, maps);
}
