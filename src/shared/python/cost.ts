// What a parsed JSON value costs in V8's heap, estimated from above: from its text in one pass before parse.ts runs
// (so a server can reserve it first), and from a value already parsed (what a handler keeps of one). Measured on
// Node 20 (64-bit, no pointer compression): an empty PyDict (a Map) ~194 bytes, an array with one element ~194 (its
// first push makes room for 17), a two-character string ~34, a PyFloat ~58, a bigint of 20 digits ~42, an int of
// up to 9 digits, true, false, null and a one-character Latin-1 string nothing but their slot (decision 0135).
import { PyFloat, type PyValue } from './values.js';

const DICT = 200;
const LIST = 200;
/** A Map entry (its part of the hash table, which doubles as it grows) besides the key's and the value's own cost. */
const ENTRY = 48;
/** A value's slot in the array or entry holding it (an array grows by half again). */
const SLOT = 16;
/** A string's header and alignment; its characters cost one byte each, two when one is past U+00FF. */
const STRING = 32;
const FLOAT = 64;
/** An int past V8's small integers but within 15 digits: a heap number. */
const HEAP_NUMBER = 16;
/** A bigint (an int of 16 digits or more): a header and about half a byte a digit. */
const BIGINT = 32;

const stringCost = (length: number, wide: boolean): number => (length <= 1 && !wide ? 0 : STRING + length * (wide ? 2 : 1));

function intCost(digits: number): number {
  if (digits <= 9) return 0;
  return digits <= 15 ? HEAP_NUMBER : BIGINT + digits;
}

/**
 * At least what parsePyJson(text) allocates for its value (not counting `text` itself), in bytes; linear, no
 * allocation. Counts what the text holds outside strings: `{` a dict, `[` a list, `:` an entry, each string, number
 * and NaN/Infinity by its length, and a slot for every value. Text that is no JSON gets a number all the same.
 * @example parseCost('[{},{}]') // 664: a list and two dicts, each with its slot, and the root's slot
 */
export function parseCost(text: string): number {
  let cost = SLOT;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    switch (c) {
      case 0x7b: // {
        cost += DICT + SLOT;
        break;
      case 0x5b: // [
        cost += LIST + SLOT;
        break;
      case 0x3a: // :
        cost += ENTRY;
        break;
      case 0x22: {
        // A string: its raw length bounds its decoded one (an escape is longer than what it stands for).
        const start = i + 1;
        let wide = false;
        for (i = start; i < n; i++) {
          const d = text.charCodeAt(i);
          if (d === 0x22) break;
          if (d === 0x5c) {
            // \uXXXX may stand for a character past U+00FF.
            if (text.charCodeAt(i + 1) === 0x75) wide = true;
            i++;
          } else if (d > 0xff) wide = true;
        }
        cost += SLOT + stringCost(i - start, wide);
        break;
      }
      case 0x2d: // -
      case 0x30: case 0x31: case 0x32: case 0x33: case 0x34: case 0x35: case 0x36: case 0x37: case 0x38: case 0x39: {
        let digits = 0;
        let float = false;
        for (; i < n; i++) {
          const d = text.charCodeAt(i);
          if (d >= 0x30 && d <= 0x39) digits++;
          else if (d === 0x2e || d === 0x65 || d === 0x45) float = true;
          else if (d !== 0x2d && d !== 0x2b) break;
        }
        i--;
        cost += SLOT + (float ? FLOAT : intCost(digits));
        break;
      }
      case 0x4e: // NaN
        if (text.startsWith('NaN', i)) {
          cost += SLOT + FLOAT;
          i += 2;
        }
        break;
      case 0x49: // Infinity
        if (text.startsWith('Infinity', i)) {
          cost += SLOT + FLOAT;
          i += 7;
        }
        break;
      case 0x74: // true, false, null: their other letters count nothing
      case 0x66:
      case 0x6e:
        cost += SLOT;
        break;
    }
  }
  return cost;
}

/**
 * At least what `value` holds in the heap (strings and their containers; not what it shares with other values), in
 * bytes, by the same measures as parseCost.
 * @example valueCost(new Map([['input', 'hello there']])) // a dict, an entry, a key and a string
 */
export function valueCost(value: PyValue | undefined): number {
  if (value === undefined || value === null || typeof value === 'boolean') return SLOT;
  if (typeof value === 'number') return SLOT + (Number.isInteger(value) ? intCost(String(Math.abs(value)).length) : FLOAT);
  if (typeof value === 'bigint') return SLOT + BIGINT + value.toString().length;
  if (typeof value === 'string') return SLOT + stringCost(value.length, /[^\x00-\xff]/.test(value));
  if (value instanceof PyFloat) return SLOT + FLOAT;
  let cost = SLOT;
  if (Array.isArray(value)) {
    cost += LIST;
    for (const item of value) cost += valueCost(item);
    return cost;
  }
  cost += DICT;
  for (const [k, v] of value) cost += ENTRY + valueCost(k) + valueCost(v);
  return cost;
}
