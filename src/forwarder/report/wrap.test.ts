// The terminal text helpers `hermetic query` and `hermetic report` share: controls made visible, widths in columns,
// cuts between whole characters, padding by width, words wrapped by width.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeFilterMiss } from './filter-miss.js';
import { displayWidth, fitParts, fitText, padText, wrapWords } from './wrap.js';
import { terminalText } from '../../shared/terminal-text.js';

test('terminalText: ESC and other C0 controls as control pictures, TAB a space, DEL ␡, C1 as \\xNN, line breaks ⏎', () => {
  assert.equal(terminalText('\x1b[31mRED\x1b[0m title\twith tab'), '␛[31mRED␛[0m title with tab');
  assert.equal(terminalText('a\x00b\x07c\x7fd\x85e\x9bf\r\ng\nh\ri'), 'a␀b␇c␡d\\x85e\\x9bf⏎g⏎h␍i');
  assert.equal(terminalText('plain 日本 😀'), 'plain 日本 😀');
  assert.doesNotMatch(terminalText(String.fromCharCode(...Array.from({ length: 0xa0 }, (_, i) => i))), /[\x00-\x1f\x7f-\x9f]/);
});

test('displayWidth: wide and fullwidth 2, emoji 2, combining marks and zero-width 0, ASCII 1', () => {
  assert.deepEqual(['abc', '日本語', 'ｆｕｌｌ', '한국', '😀', '❤️', '🇩🇪', '👨‍👩‍👧', 'e\u0301', 'a\u200bb', '␛[0m', ''].map(displayWidth),
    [3, 6, 8, 4, 2, 2, 2, 2, 1, 2, 4, 0]);
});

test('a soft hyphen and the Arabic number signs take a column, as terminals (and wcwidth) draw them: a title of them still fits (decision 0075)', () => {
  assert.deepEqual(['a\u00adb', '\u0600\u0661', '\u06dd', '\u{110bd}'].map(displayWidth), [3, 1, 1, 1]);
  assert.equal(fitText('\u00ad'.repeat(20), 10), `${'\u00ad'.repeat(9)}…`);
});

test('a long value is measured and cut in time linear in its length, to the same graphemes as one segmentation (decision 0075)', () => {
  // Node 20's Intl.Segmenter takes time quadratic in the text's length: a 200,000-character title or message took
  // minutes to measure. Texts are segmented in windows; a window's last grapheme is read again with the next one.
  const long = '数据分析'.repeat(50_000);
  const started = performance.now();
  assert.equal(displayWidth(long), 400_000);
  assert.equal(fitText(long, 7), '数据分…');
  assert.ok(performance.now() - started < 5000, `${Math.round(performance.now() - started)} ms`);
  // Across window edges: flags (pairs of regional indicators), ZWJ families, combining marks, a grapheme longer than a
  // window, CR LF, surrogate pairs; measured as the whole text in one segmentation measures it.
  const whole = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const pieces = ['a', '日', '🇩🇪', '🇩', '👨‍👩‍👧', 'e\u0301', '\r\n', '😀', '\u0600', ' ', 'x\u20dd', 'ｆ'];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let round = 0; round < 10; round++) {
    let text = '';
    while (text.length < 2500 + round * 150) text += pieces[next() % pieces.length];
    if (round === 3) text = `a${'\u0301'.repeat(5000)}b${text}`;
    const expected = [...whole.segment(text)].reduce((w, { segment }) => w + displayWidth(segment), 0);
    assert.equal(displayWidth(text), expected, `round ${round}`);
  }
});

test('text of one-column characters is measured and cut by its length, as the segmenter measures and cuts it', () => {
  // Every code point the fast path takes (wrap.ts ONE_COLUMN_EACH), each checked against the path that segments: a
  // combining mark after it joins its grapheme and adds no width, so the text with one goes through the segmenter.
  const ranges: [number, number][] = [[0x20, 0x7e], [0xa0, 0xac], [0xae, 0x2ff], [0x2010, 0x2027], [0x2030, 0x205e], [0x2190, 0x22ff], [0x2500, 0x25fc]];
  for (const [first, last] of ranges) {
    for (let cp = first; cp <= last; cp++) {
      const ch = String.fromCodePoint(cp);
      assert.equal(displayWidth(`${ch}${ch}`), 2, `U+${cp.toString(16)}`);
      assert.equal(displayWidth(`${ch}${ch}\u0301`), 2, `U+${cp.toString(16)} through the segmenter`);
    }
  }
  const line = 'cost       $821 · 102M input — 62.8% ≥ ×4 ─── ▸ → ‰ “é” …';
  for (let width = 1; width <= line.length + 1; width++) {
    for (const trim of [false, true]) {
      const slow = fitText(`${line}\u0301`, width, trim);
      assert.equal(fitText(line, width, trim), slow.endsWith('\u0301') ? line : slow, `width ${width}`);
    }
  }
  // The two geometric shapes drawn as emoji are not taken: two columns each.
  assert.deepEqual(['\u25fd', '\u25fe'].map(displayWidth), [2, 2]);
});

test('fitText cuts between whole characters (never half a surrogate pair or a wide character) and padText pads by width', () => {
  assert.equal(fitText('日本語テキスト', 6), '日本…');
  assert.equal(fitText('日本語テキスト', 4), '日…');
  assert.equal(fitText('😀😀😀', 4), '😀…');
  assert.equal(fitText('e\u0301e\u0301e\u0301', 2), 'e\u0301…');
  assert.equal(fitText('ab   cd', 5, true), 'ab…');
  assert.equal(fitText('short', 5), 'short');
  assert.deepEqual([padText('日本', 6), padText('日本', 6, 'right'), padText('日本語', 4)], ['日本  ', '  日本', '日本語']);
});

test('wrapWords measures in columns, colour codes taking none', () => {
  assert.deepEqual(wrapWords('日本 日本 日本', 10), ['日本 日本', '日本']);
  assert.deepEqual(wrapWords('\x1b[1mab\x1b[22m cd ef', 5), ['\x1b[1mab\x1b[22m cd', 'ef']);
});

test('a filter that matches nothing names the values the data has harmlessly (a model name with ESC is shown visibly)', () => {
  const text = describeFilterMiss({ columns: [{ name: 'model', asked: ['x\x1b[2J'], matched: false, present: ['evil\x1b[31m', 'gpt-5'], more: false }], elsewhere: false }, 80);
  assert.doesNotMatch(text, /\x1b/);
  assert.match(text, /evil␛\[31m, gpt-5/);
  assert.match(text, /--filter model=x␛\[2J/);
});

test('fitParts keeps whole parts from the end of a path or an id, else cuts its last part at the end', () => {
  const path = '/home/alice/code/acme/backend-service';
  assert.equal(fitParts(path, 40), path);
  assert.equal(fitParts(path, 24), '…/acme/backend-service');
  assert.equal(fitParts(path, 20), '…/backend-service');
  assert.equal(fitParts(path, 16), '…backend-service');
  assert.equal(fitParts(path, 12), 'backend-ser…');
  assert.equal(fitParts('anthropic/claude-sonnet-4.6', 19), '…/claude-sonnet-4.6');
  assert.equal(fitParts('google/gemini-2.5-flash-preview-09-2025', 18), 'gemini-2.5-flash-…');
  assert.equal(fitParts('bedrock:claude-3-haiku', 16), '…:claude-3-haiku');
  assert.equal(fitParts('bedrock:claude-3-haiku', 15), '…claude-3-haiku');
  assert.equal(fitParts('C:\\Users\\bob\\proj', 8), '…\\proj');
  // A trailing separator is not a part; a value with none is cut at its end, as fitText cuts.
  assert.equal(fitParts('/srv/app/', 5), '…app');
  assert.equal(fitParts('nosep-very-long-name', 10), 'nosep-ver…');
  // Wide characters are measured in columns and never halved.
  assert.equal(fitParts('/x/日本語テキスト', 8), '日本語…');
  assert.equal(fitParts('/x/日本語', 8), '…/日本語');
  assert.equal(fitParts('/x/日本語', 7), '…日本語');
  assert.equal(fitParts('/a/b', 0), '');
  // A value of a million parts: only its end is read (every part tried from the start made this quadratic).
  assert.equal(fitParts(`${'/a'.repeat(1_000_000)}/backend-service`, 20), '…/a/backend-service');
  assert.equal(fitParts(`${'/'.repeat(1_000_000)}x`, 20), `…${'/'.repeat(18)}x`);
});
