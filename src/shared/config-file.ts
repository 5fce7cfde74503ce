// Config files, read once for every command that takes one (`hermetic serve --config`, the forwarder's config): JSON
// or YAML by extension, decoded to plain values, with refusals (HERMETIC_CONFIG_INVALID) that name the file and say
// why — a missing file, a folder, a syntax error at a line and column. What the keys mean is each reader's business.
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { HermeticError } from './errors.js';
import { yaml } from './yaml.js';

function refuse(name: string, message: string): never {
  throw new HermeticError('HERMETIC_CONFIG_INVALID', `Config file ${name} ${message}`);
}

/** The file's text, or a one-line refusal that says why it cannot be read. */
function readText(name: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') refuse(name, `does not exist (looked for ${path}).`);
    if (code === 'EISDIR') refuse(name, 'is a folder, not a file.');
    if (code === 'EACCES' || code === 'EPERM') refuse(name, 'cannot be read: permission denied.');
    refuse(name, `cannot be read: ${(e as Error).message}.`);
  }
}

/** JSON or YAML by extension, decoded to plain values; syntax errors name the line and column. */
function decode(name: string, path: string, text: string): unknown {
  const ext = extname(path).toLowerCase();
  if (ext === '.json') {
    try {
      return JSON.parse(text);
    } catch (e) {
      refuse(name, `is not valid JSON: ${jsonProblem(text, (e as Error).message)}.`);
    }
  }
  if (ext === '.yaml' || ext === '.yml') {
    const doc = yaml().parseDocument(text, { uniqueKeys: true, prettyErrors: true });
    const problem = doc.errors[0];
    if (problem) refuse(name, `is not valid YAML: ${problem.message.split('\n')[0]!.replace(/:$/, '')}.`);
    selfHolding(name, text, doc);
    try {
      return doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      refuse(name, `is not valid YAML: ${(e as Error).message.split('\n')[0]}.`);
    }
  }
  refuse(name, `must end in .json, .yaml or .yml (got "${ext || 'no extension'}").`);
}

/**
 * Refuses an alias inside the node it names (`a: &a [*a]`): yaml's toJS makes it a cycle, which every reader after it
 * would walk until the stack ran out.
 */
function selfHolding(name: string, text: string, doc: ReturnType<ReturnType<typeof yaml>['parseDocument']>): void {
  const { visit } = yaml();
  visit(doc, {
    Alias(_key, node, path) {
      const target = node.resolve(doc);
      if (target === undefined || !path.includes(target)) return;
      const at = node.range?.[0] ?? 0;
      const before = text.slice(0, at);
      refuse(name, `is not valid YAML: the alias *${node.source} names a node that holds it (a value cannot contain itself) at line ${before.split('\n').length}, column ${at - before.lastIndexOf('\n')}.`);
    },
  });
}

/** JSON.parse's message with the position turned into a line and column a person can find. */
function jsonProblem(text: string, message: string): string {
  const at = /at position (\d+)/.exec(message);
  const clean = message.split('\n')[0]!.replace(/ in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, '');
  if (!at) return clean;
  const before = text.slice(0, Number(at[1]));
  const line = before.split('\n').length;
  return `${clean} at line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
}

/**
 * The decoded contents of a JSON or YAML config file (`name` is how it is named to the user, `path` where it is).
 * @example readConfigFile('hermetic.yaml', '/home/u/hermetic.yaml') // { port: 8642 }
 */
export function readConfigFile(name: string, path: string): unknown {
  return decode(name, path, readText(name, path));
}
