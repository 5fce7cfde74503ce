// The tests of what Hermetic says when the system refuses it a file or a folder (EACCES), run where the suite runs as
// root too (CI, decision 0123): root reads and writes past any mode by two capabilities (CAP_DAC_OVERRIDE and
// CAP_DAC_READ_SEARCH), so the calls that must meet the refusal run in a child process that is still root but has
// neither (util-linux's `setpriv` takes them out of its bounding set), on the tests' build of src/
// (test/support/cli-build.ts, decision 0095). Still the owner of the tests' files, the child reads the clone wherever it
// is (a 0700 temporary folder too), and meets each mode as its owner would. As any other user the calls run in the
// test's own process, as they always did.
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { builtModule } from '../../../test/support/cli-build.js';
import { ERROR_CODES, HermeticError, type ErrorCode } from '../errors.js';

const isRoot = process.getuid?.() === 0;
/** The command that starts a program as root without the capabilities that let root past a file's mode. */
const WITHOUT_OVERRIDES = ['setpriv', '--bounding-set=-dac_override,-dac_read_search', '--'];

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
 * Why such a test cannot run here, or false: root, on a system with no `setpriv`, or that lets no child give up those
 * capabilities (a container without CAP_SETPCAP, say). For a test's `skip`.
 */
export const cannotDropRoot: string | false = (() => {
  if (!isRoot) return false;
  const r = spawnSync(WITHOUT_OVERRIDES[0]!, [...WITHOUT_OVERRIDES.slice(1), process.execPath, '-e', ''], { stdio: 'ignore' });
  if (r.error || r.status !== 0) return `root here, and no child could be started without root's overrides of file modes (setpriv: ${(r.error as NodeJS.ErrnoException | undefined)?.code ?? `exit ${r.status}`})`;
  return false;
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
  const r = spawnSync(WITHOUT_OVERRIDES[0]!, [...WITHOUT_OVERRIDES.slice(1), process.execPath, '--input-type=module', '-e', CHILD, '--', url, name, JSON.stringify(args)], {
    encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL',
  });
  if (r.error) throw r.error;
  const last = r.stdout.trimEnd().split('\n').pop();
  if (r.status !== 0 || !last) throw new Error(`${name} without root's overrides failed (${r.status ?? r.signal}): ${r.stderr}`);
  const out = JSON.parse(last) as { value?: unknown; thrown?: { name?: string; code?: string; message: string } };
  if (out.thrown) throw rethrown(out.thrown);
  return out.value;
}

/**
 * `fns`, the synchronous exports of the module `source` (a .ts file under src/) by the same names, called as a user
 * that file modes bind: as they are, unless this process is root; then each call runs in a child without root's
 * overrides of file modes, its arguments and result passed as JSON (plain data only), what it throws thrown here
 * (`rethrown`), a child that fails otherwise said with its stderr.
 * @example
 * const bound = unprivileged(new URL('./dotfile.ts', import.meta.url), { readDotfile });
 * bound.readDotfile(dir) // { class: 'ignore', declared: null, clamped: true } for a .hypignore no one may read
 */
export function unprivileged<M extends Record<string, (...args: never[]) => unknown>>(source: URL, fns: M): M {
  if (!isRoot) return fns;
  const inChildren = Object.keys(fns).map((name) => [name, (...args: unknown[]) => inChild(source, name, args)]);
  return Object.fromEntries(inChildren) as unknown as M;
}
