// The usage-policy resolver: a scope folder → its class, from the nearest `.hypignore` and the machine-local list.
import { isAbsolute, join } from 'node:path';
import { HermeticError } from '../../shared/errors.js';
import { isStricter, strictest, type PolicyClass } from './classes.js';
import { DOTFILE_NAME, readDotfile, type DotfileVerdict } from './dotfile.js';
import { readTextFile, realPath, type ReadTextFile, type RealPath } from './io.js';
import { matchLocalList, readLocalList, type ListEntry } from './local-list.js';
import { ancestors, resolvedSpelling, spellings, withFolded } from './spellings.js';

export interface Verdict {
  class: PolicyClass;
  /** The scope as asked, or null when the row has none. */
  scope: string | null;
  /** The `.hypignore` that governs the scope, if any (reported even when the list is stricter). */
  governingFile: string | null;
  /** That file's class token as written; null when there is no file, or it is empty or unreadable. */
  declared: string | null;
  /** The list entry (its dir as written) that governs the scope, if any (reported even when the file is stricter). */
  listEntry: string | null;
  /** True when a fail-safe made the answer `ignore`: an unknown token, an unreadable file, a relative scope. */
  clamped: boolean;
  /** One sentence saying why. */
  reason: string;
}

export interface PolicyResolverOptions {
  /** Hermetic's state folder; the list is `<stateDir>/usage-policy/local-only.json`. */
  stateDir: string;
  /** Milliseconds; answers and the parsed list are reused until `cacheMs` has passed on this clock. */
  now: () => number;
  cacheMs?: number;
  realpath?: RealPath;
  readFile?: ReadTextFile;
}

export interface PolicyResolver {
  /** Throws HERMETIC_POLICY_LIST when the list exists but cannot be read or is malformed (fail closed). */
  resolve(scopeDir: string | null): Verdict;
  /**
   * Reads the machine-local list (through the cache) and throws HERMETIC_POLICY_LIST when it exists but cannot be read
   * or is malformed: a pass checks it first, so a broken list stops forwarding even when nothing changed to judge.
   */
  checkList(): void;
  /** Forgets every cached answer and the parsed list. */
  invalidate(): void;
}

interface PreparedList {
  file: string;
  /** The entries as written, and again with each dir symlink-resolved and NFC-folded: each view is judged alone. */
  views: ListEntry[][];
}

interface Generation {
  bornAt: number;
  list: PreparedList;
  dotfiles: Map<string, DotfileVerdict | null>;
  verdicts: Map<string, Verdict>;
}

/** Bounds memory when a burst of distinct scopes arrives within one cache period. */
const MAX_CACHED_SCOPES = 10_000;

/**
 * @example
 * const policy = createPolicyResolver({ stateDir: '/home/u/.hermetic', now: () => clock.now() * 1000 });
 * policy.resolve('/home/u/secret/project') // { class: 'ignore', reason: '/home/u/secret/.hypignore says ignore', … }
 */
export function createPolicyResolver(options: PolicyResolverOptions): PolicyResolver {
  const { stateDir, now, cacheMs = 5000, realpath = realPath, readFile = readTextFile } = options;
  if (typeof cacheMs !== 'number' || !Number.isFinite(cacheMs) || cacheMs < 0) {
    throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "cacheMs" must be a finite number of milliseconds, 0 or more; got ${String(cacheMs)}.`);
  }
  let gen: Generation | null = null;

  function current(): Generation {
    const t = now();
    if (gen && t >= gen.bornAt && t - gen.bornAt < cacheMs) return gen;
    gen = null;
    const list = prepareList(stateDir, readFile, realpath);
    gen = { bornAt: t, list, dotfiles: new Map(), verdicts: new Map() };
    return gen;
  }

  function nearestDotfile(dir: string, g: Generation): { file: string; verdict: DotfileVerdict } | null {
    for (const a of ancestors(dir)) {
      let verdict = g.dotfiles.get(a);
      if (verdict === undefined) g.dotfiles.set(a, (verdict = readDotfile(a, readFile)));
      if (verdict) return { file: join(a, DOTFILE_NAME), verdict };
    }
    return null;
  }

  function evaluate(scope: string, g: Generation): Verdict {
    if (!isAbsolute(scope)) {
      const reason = `scope ${JSON.stringify(scope)} is not an absolute path, so it is treated as ignore (fail-safe)`;
      return verdictOf(scope, 'ignore', null, null, null, true, reason);
    }
    const names = spellings(scope, realpath);
    let dot: { file: string; verdict: DotfileVerdict } | null = null;
    for (const name of names) {
      const found = nearestDotfile(name, g);
      if (found && (!dot || isStricter(found.verdict.class, dot.verdict.class))) dot = found;
    }
    let entry: ListEntry | null = null;
    for (const view of g.list.views) {
      for (const name of withFolded(names)) {
        const m = matchLocalList(view, name);
        if (m && (!entry || isStricter(m.class, entry.class))) entry = m;
      }
    }
    const cls = strictest(dot?.verdict.class ?? 'full', entry?.class ?? 'full');
    const dotSays = dot && dotPhrase(dot.file, dot.verdict);
    const listSays = entry && `${g.list.file} lists ${entry.written} as ${entry.class}`;
    const reason = dotSays && listSays ? `${dotSays} and ${listSays}: ${cls}`
      : dotSays ?? listSays ?? `no ${DOTFILE_NAME} above ${scope} and no list entry: full`;
    return verdictOf(scope, cls, dot?.file ?? null, dot?.verdict.declared ?? null, entry?.written ?? null,
      dot?.verdict.clamped ?? false, reason);
  }

  return {
    resolve(scopeDir) {
      if (scopeDir === null || scopeDir === '') {
        return verdictOf(null, 'full', null, null, null, false, 'no scope (the session has no cwd): full');
      }
      const g = current();
      const cached = g.verdicts.get(scopeDir);
      if (cached) return cached;
      const verdict = evaluate(scopeDir, g);
      if (g.verdicts.size >= MAX_CACHED_SCOPES) {
        g.verdicts.clear();
        g.dotfiles.clear();
      }
      g.verdicts.set(scopeDir, verdict);
      return verdict;
    },
    checkList() {
      current();
    },
    invalidate() {
      gen = null;
    },
  };
}

function prepareList(stateDir: string, readFile: ReadTextFile, realpath: RealPath): PreparedList {
  const { file, entries } = readLocalList(stateDir, readFile);
  const written = [...entries];
  const resolved = entries.map((e) => ({ ...e, dir: resolvedSpelling(e.dir, realpath) }));
  const fold = (view: ListEntry[]) => view.map((e) => ({ ...e, dir: e.dir.normalize('NFC') }));
  return { file, views: [written, fold(written), resolved, fold(resolved)] };
}

function dotPhrase(file: string, v: DotfileVerdict): string {
  if (v.declared === null) {
    return v.clamped ? `${file} exists but cannot be read, so it means ignore` : `${file} has no class token, so it means ignore`;
  }
  if (v.clamped) return `${file} says "${v.declared}", which is not a ${DOTFILE_NAME} class, so it is clamped to ignore`;
  return `${file} says ${v.declared}`;
}

function verdictOf(
  scope: string | null, cls: PolicyClass, governingFile: string | null, declared: string | null,
  listEntry: string | null, clamped: boolean, reason: string,
): Verdict {
  return Object.freeze({ class: cls, scope, governingFile, declared, listEntry, clamped, reason });
}
