// docs/ARCHITECTURE.md names the file for each step: every source file is named there, and every `src/…` path it
// names exists, so the map cannot silently fall behind the code.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const ROOT = resolve('.');
const DOC = readFileSync(join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
const LINES = DOC.split('\n');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [relative(ROOT, path).split('\\').join('/')] : [];
  });
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Named: its whole path; or, on one line, a folder above it followed by the rest of its path (`src/a/b.ts`, `c.ts`
 * names `src/a/c.ts`); or its own folder named as a whole (`src/a/`); an index.ts is named with its folder.
 */
function named(file: string): boolean {
  if (DOC.includes(file)) return true;
  const parts = file.split('/');
  for (let i = parts.length - 1; i >= 2; i--) {
    const folder = `${parts.slice(0, i).join('/')}/`;
    const rest = new RegExp(`[\`( ,]${escape(parts.slice(i).join('/'))}\\b`);
    if (LINES.some((l) => l.includes(folder) && rest.test(l))) return true;
  }
  const folder = `${dirname(file)}/`;
  return DOC.includes(`\`${folder}\``) || (basename(file) === 'index.ts' && DOC.includes(folder));
}

test('every source file is named in docs/ARCHITECTURE.md', () => {
  const files = sources(join(ROOT, 'src'));
  assert.ok(files.length > 300, `found ${files.length} source files`);
  assert.deepEqual(files.filter((f) => !named(f)), [], 'add each to the row of the step it does');
});

test('every src/ path docs/ARCHITECTURE.md names exists', () => {
  const paths = [...new Set([...DOC.matchAll(/`(src\/[^`\s*]+)`/g)].map((m) => m[1]!))];
  assert.ok(paths.length > 100);
  assert.deepEqual(paths.filter((p) => !existsSync(join(ROOT, p))), []);
});
