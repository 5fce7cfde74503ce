// Python semantics both halves need, once: CPython 3.11 `json` (loads with aiohttp's body decoding, the three dumps
// styles Hermes uses), float repr, str()/repr(), bool(), round(), str.strip() and len(). Tested against CPython.
export { PyFloat, PyJsonDecodeError, PyJsonError, clonePy, type PyDict, type PyValue } from './values.js';
export { parsePyJson } from './parse.js';
export { decodeAndParse, decodeText } from './decode.js';
export { canonicalDumps, compareCodePoints, dumps, dumpsSorted, dumpsUnicode, pyFloatRepr, type PlainJson } from './dump.js';
export { decodeSurrogateEscape, hasLoneSurrogate, pyLen, pyStrip, scrubSurrogates, utf8SequenceLength, withoutLoneSurrogates } from './strings.js';
export { isDict, pyFloatStr, pyRepr, pyRound, pyStr, pyStrRepr, pyTruthy, sqliteBindable, SQLITE_INT_MAX, SQLITE_INT_MIN } from './builtins.js';
export { parseCost, valueCost } from './cost.js';
export { MAX_INT_DIGITS, pyInt } from './int.js';
