// Every relative link in the README and the docs (which ship in the package) reaches a file or folder that exists
// inside the repository: a reader who follows one never lands on nothing, or on a folder only we have.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const ROOT = resolve('.');

function markdown(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? markdown(path) : name.endsWith('.md') ? [path] : [];
  });
}

/** Link targets of `[text](target)` and `[text]: target`, outside code spans and fenced blocks. */
function linkTargets(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  return [
    ...[...prose.matchAll(/\]\(\s*(?:<([^>]+)>|([^)\s]+))(?:\s+"[^"]*")?\s*\)/g)].map((m) => (m[1] ?? m[2])!),
    ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?\s*$/gm)].map((m) => m[1]!),
  ];
}

const external = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#');

test('relative links in README.md and docs/ resolve to files in the repository', () => {
  const files = ['README.md', ...markdown('docs')];
  const broken: string[] = [];
  let checked = 0;
  for (const file of files) {
    for (const target of linkTargets(readFileSync(file, 'utf8'))) {
      if (external(target)) continue;
      checked++;
      const path = resolve(dirname(file), decodeURIComponent(target.split('#')[0]!));
      if (relative(ROOT, path).startsWith('..')) broken.push(`${file}: ${target} (outside the repository)`);
      else if (!existsSync(path)) broken.push(`${file}: ${target}`);
    }
  }
  assert.ok(checked >= 10, `the scan found ${checked} links`);
  assert.deepEqual(broken, []);
});

test('the link scan sees links and skips code', () => {
  assert.deepEqual(linkTargets('see [a](docs/a.md#x) and [b](<b c.md> "t")\n[ref]: ./r.md\n`[no](x.md)`\n```\n[no](y.md)\n```\n'), [
    'docs/a.md#x',
    'b c.md',
    './r.md',
  ]);
});
