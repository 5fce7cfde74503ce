// Byte-exact reimplementation of CPython 3.11 `json` (loads / dumps / sort_keys canonical form) plus small str
// helpers. The parts live in python-json/; this file is their face.
export { PyFloat, PyJsonError, type PyDict, type PyValue } from './python-json/values.js';
export { parsePyJson } from './python-json/parse.js';
export { decodeAndParse } from './python-json/decode.js';
export { canonicalDumps, compareCodePoints, dumps, dumpsSorted, pyFloatRepr } from './python-json/dump.js';
export { hasLoneSurrogate, pyLen, pyStrip } from './python-json/strings.js';
