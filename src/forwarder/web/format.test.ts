// The dashboard's formatting of figures (public/format.js, a browser module with no DOM use), read here in Node.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

const format = (await import(new URL('./public/format.js', import.meta.url).href)) as { seconds(s: number | null | undefined): string };

describe('seconds', () => {
  it('rounds once, so a time just under a minute (or an hour) carries into the next unit, never "60 s" or "60 min"', () => {
    const cases: [number | null, string][] = [[null, '–'], [0, '0.0 s'], [4.25, '4.3 s'], [9.96, '10 s'], [42.4, '42 s'], [59.6, '1 min 0 s'],
      [61, '1 min 1 s'], [119.6, '2 min 0 s'], [3599.4, '59 min 59 s'], [3599.7, '1 h 0 min'], [3629, '1 h 0 min'], [3630, '1 h 1 min'],
      [7169.9, '1 h 59 min'], [7170, '2 h 0 min'], [7200, '2 h 0 min'], [16_666_680, '4629 h 38 min']];
    assert.deepEqual(cases.map(([s]) => format.seconds(s)), cases.map(([, text]) => text));
  });
});
