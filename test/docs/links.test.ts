// Every relative link in the README and the docs (which ship in the package) reaches a file or folder that exists
// inside the repository, and a `#fragment` into a Markdown file names one of its headings as GitHub anchors them: a
// reader who follows one never lands on nothing, or on a folder only we have.
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

/**
 * The anchors GitHub gives a Markdown file's headings (outside fenced blocks): the heading's text without its Markdown
 * (code marks, link targets), lower-cased, punctuation other than `-` and `_` dropped, spaces as `-`; a repeated one
 * gets `-1`, `-2`, ….
 */
function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const plain = m[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '');
    const slug = plain.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

const external = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

test('relative links in README.md and docs/ resolve to files in the repository', () => {
  const files = ['README.md', ...markdown('docs')];
  const broken: string[] = [];
  let checked = 0;
  for (const file of files) {
    for (const target of linkTargets(readFileSync(file, 'utf8'))) {
      if (external(target)) continue;
      const [pathPart, fragment] = target.split('#') as [string, string | undefined];
      checked++;
      const path = pathPart === '' ? resolve(file) : resolve(dirname(file), decodeURIComponent(pathPart));
      if (relative(ROOT, path).startsWith('..')) broken.push(`${file}: ${target} (outside the repository)`);
      else if (!existsSync(path)) broken.push(`${file}: ${target}`);
      else if (fragment && path.endsWith('.md') && !headingAnchors(readFileSync(path, 'utf8')).has(decodeURIComponent(fragment))) {
        broken.push(`${file}: ${target} (no heading of ${relative(ROOT, path)} has that anchor)`);
      }
    }
  }
  assert.ok(checked >= 10, `the scan found ${checked} links`);
  assert.deepEqual(broken, []);
});

test('heading anchors are the ones GitHub makes', () => {
  assert.deepEqual([...headingAnchors('# Hermetic\n## Sessions (`/api/sessions`)\n### The forwarder\'s JSON lines: events and `error_kind`\n```\n# not a heading\n```\n## A [link](x.md) here\n## Hermetic\n')], [
    'hermetic',
    'sessions-apisessions',
    'the-forwarders-json-lines-events-and-error_kind',
    'a-link-here',
    'hermetic-1',
  ]);
});

test('the link scan sees links and skips code', () => {
  assert.deepEqual(linkTargets('see [a](docs/a.md#x) and [b](<b c.md> "t")\n[ref]: ./r.md\n`[no](x.md)`\n```\n[no](y.md)\n```\n'), [
    'docs/a.md#x',
    'b c.md',
    './r.md',
  ]);
});
