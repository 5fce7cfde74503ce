// The tests of what Hermetic says when the system refuses it a file or a folder (EACCES), run where the suite runs as
// root too (CI, decision 0123): root reads and writes past any mode, so the calls that must meet the refusal run in a
// child process as nobody (uid and gid 65534), on the tests' build of src/ (test/support/cli-build.ts, decision 0095).
// As any other user they run in the test's own process, as they always did. The folders such a child must reach are
// the test's to open to it (chmod 755); the file or folder under test keeps its mode.
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { builtModule } from '../../../test/support/cli-build.js';
import { ERROR_CODES, HermeticError, type ErrorCode } from '../errors.js';

/** nobody and nogroup: a user no file of the tests belongs to. */
const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;

/** The child: calls the export, prints what it returned or threw as one line of JSON. */
const CHILD = `
const [url, name, args] = process.argv.slice(1);
const exports = await import(url);
let out;
try {
  out = { value: exports[name](...JSON.parse(args)) };
} catch (e) {
  out = { thrown: { name: e?.name, code: e?.code, message: e?.message ?? String(e) } };
}
process.stdout.write('\\n' + JSON.stringify(out) + '\\n');
`;

/**
 * Why such a test cannot run here, or false: root, on a system that lets no child drop it (a container without
 * CAP_SETUID, say). For a test's `skip`.
 */
export const cannotDropRoot: string | false = (() => {
  if (!isRoot) return false;
  const r = spawnSync(process.execPath, ['-e', ''], { uid: NOBODY, gid: NOBODY, stdio: 'ignore' });
  const code = (r.error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EPERM' ? 'root here, and may not start a child as nobody (EPERM) to meet the refusal' : false;
})();

/** What a child threw, thrown again here: a HermeticError as one, anything else as an Error with its name and code. */
function rethrown(t: { name?: string; code?: string; message: string }): Error {
  if (t.name === 'HermeticError' && t.code !== undefined && t.code in ERROR_CODES) {
    return new HermeticError(t.code as ErrorCode, t.message);
  }
  return Object.assign(new Error(t.message), { name: t.name ?? 'Error', code: t.code });
}

function inChild(source: URL, name: string, args: unknown[]): unknown {
  const url = pathToFileURL(builtModule(source)).href;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD, '--', url, name, JSON.stringify(args)], {
    uid: NOBODY, gid: NOBODY, encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL',
  });
  if (r.error) throw r.error;
  const last = r.stdout.trimEnd().split('\n').pop();
  if (r.status !== 0 || !last) throw new Error(`${name} as nobody failed (${r.status ?? r.signal}): ${r.stderr}`);
  const out = JSON.parse(last) as { value?: unknown; thrown?: { name?: string; code?: string; message: string } };
  if (out.thrown) throw rethrown(out.thrown);
  return out.value;
}

/**
 * `fns`, the synchronous exports of the module `source` (a .ts file under src/) by the same names, called as a user
 * who is not root: as they are, unless this process is root; then each call runs in a child as nobody, its arguments
 * and result passed as JSON (plain data only), what it throws thrown here (`rethrown`), a child that fails otherwise
 * said with its stderr.
 * @example
 * const nobody = unprivileged(new URL('./dotfile.ts', import.meta.url), { readDotfile });
 * nobody.readDotfile(dir) // { class: 'ignore', declared: null, clamped: true } for a .hypignore nobody may not read
 */
export function unprivileged<M extends Record<string, (...args: never[]) => unknown>>(source: URL, fns: M): M {
  if (!isRoot) return fns;
  const inChildren = Object.keys(fns).map((name) => [name, (...args: unknown[]) => inChild(source, name, args)]);
  return Object.fromEntries(inChildren) as unknown as M;
}
