// A scenarios file (hermetic serve --scenarios FILE): .json read with Python's json rules, anything else as YAML, both
// into decoded-JSON values that keep Python's int/float split (YAML's `2.0` stays a float), then read and checked.
import { readFileSync } from 'node:fs';
import type { Document } from 'yaml';
import { HermeticError } from '../../shared/errors.js';
import { PyFloat, decodeAndParse, type PyDict, type PyValue } from '../../shared/python/index.js';
import { yaml } from '../../shared/yaml.js';
import { ScenarioSet, fromJs, readScenarios } from './schema.js';

const invalid = (message: string): never => {
  throw new HermeticError('HERMETIC_SCENARIO_INVALID', message);
};

/** A YAML float written with a point, an exponent, or as .inf/.nan; other numbers are ints. */
const FLOAT = /[.eE]|inf|nan/i;

/** Values a file's aliases may expand to in all (the config file's YAML is held to yaml's maxAliasCount alike). */
const MAX_ALIAS_VALUES = 10_000;

/**
 * The document as decoded-JSON values. An alias is its anchor's value again, so a node that holds its own alias, or
 * aliases of aliases that multiply (the "billion laughs"), are refused before they exhaust the stack or the heap.
 */
function fromYaml(root: unknown, doc: Document, file: string): PyValue {
  const { isAlias, isMap, isScalar, isSeq } = yaml();
  /** The collections being walked (a node an alias inside it names holds itself). */
  const open = new Set<unknown>();
  /** Each alias's node, found once (Alias.resolve walks the whole document). */
  const targets = new Map<unknown, unknown>();
  let aliased = 0;
  const walk = (node: unknown, inAlias: boolean): PyValue => {
    if (inAlias && ++aliased > MAX_ALIAS_VALUES) {
      invalid(`${file}: its aliases expand to more than ${MAX_ALIAS_VALUES.toLocaleString('en-US')} values; write the repeated parts out, or repeat less.`);
    }
    if (isAlias(node)) {
      if (!targets.has(node)) targets.set(node, node.resolve(doc));
      const target = targets.get(node);
      if (open.has(target)) invalid(`${file}: the alias *${node.source} names a node that holds it; a value cannot contain itself.`);
      return walk(target, true);
    }
    if (isMap(node) || isSeq(node)) {
      open.add(node);
      try {
        if (isSeq(node)) return node.items.map((item) => walk(item, inAlias));
        const out: PyDict = new Map();
        for (const pair of node.items) {
          const key = isScalar(pair.key) ? pair.key.value : pair.key;
          if (typeof key !== 'string') invalid(`${file}: a mapping key is ${isScalar(pair.key) ? (pair.key.source ?? String(key)) : 'not a scalar'}; keys must be strings.`);
          out.set(key as string, walk(pair.value, inAlias));
        }
        return out;
      } finally {
        open.delete(node);
      }
    }
    if (isScalar(node)) {
      const v = node.value;
      if (typeof v === 'number') {
        if (FLOAT.test(node.source ?? String(v))) return new PyFloat(v);
        return Number.isSafeInteger(v) ? v : new PyFloat(v);
      }
      if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v;
      if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
      return invalid(`${file}: ${JSON.stringify(node.source ?? String(v))} is not JSON data (a string, number, boolean or null).`);
    }
    if (node === null || node === undefined) return null;
    return invalid(`${file}: unexpected YAML content.`);
  };
  return walk(root, false);
}

/** The file's text as a decoded-JSON value (no checks of the scenarios yet). */
export function parseScenarioText(text: string | Uint8Array, file: string): PyValue {
  if (file.toLowerCase().endsWith('.json')) {
    try {
      return decodeAndParse(typeof text === 'string' ? new TextEncoder().encode(text) : text);
    } catch (e) {
      return invalid(`${file} is not valid JSON (${(e as Error).message}).`);
    }
  }
  const source = typeof text === 'string' ? text : new TextDecoder().decode(text);
  const doc = yaml().parseDocument(source, { intAsBigInt: true, uniqueKeys: true });
  const error = doc.errors[0];
  if (error) {
    const at = error.linePos?.[0];
    // The message's first line, without the " at line L, column C:" the pretty form adds before its code excerpt.
    const message = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '').trim();
    invalid(`${file} is not valid YAML (${message}${at ? ` at line ${at.line}, column ${at.col}` : ''}).`);
  }
  return fromYaml(doc.contents, doc, file);
}

/**
 * Reads and checks a scenarios file; every refusal is one sentence with HERMETIC_SCENARIO_INVALID. `name` is how the
 * user named the file (messages use it).
 * @example const scenarios = loadScenarioFile('examples/scenarios.yaml'); createEmulator({ scenarios });
 */
export function loadScenarioFile(path: string, name: string = path): ScenarioSet {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a folder, not a file' : `cannot be read (${code ?? (e as Error).message})`;
    return invalid(`The scenarios file ${name} ${why}.`);
  }
  // An empty file (or one of comments only) holds no scenarios.
  return readScenarios(parseScenarioText(bytes, name) ?? new Map(), name);
}

/**
 * The `scenarios` option: a set already read (loadScenarioFile), a file path (read here), or a document as plain
 * JavaScript data (integral numbers are ints, others floats), whose mistakes are HERMETIC_OPTIONS_INVALID.
 */
export function scenariosOption(value: unknown, name: string): ScenarioSet {
  if (value instanceof ScenarioSet) return value;
  if (typeof value === 'string') return loadScenarioFile(value);
  return readScenarios(fromJs(value, name), `Option "${name}"`, undefined, 'HERMETIC_OPTIONS_INVALID');
}
