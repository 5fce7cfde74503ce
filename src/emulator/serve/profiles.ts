// `--profile NAME[=KEY]` (repeatable) → the profiles option: each Hermes profile served under /p/NAME/ with its own
// API key. A key is `--profile NAME=KEY`, else HERMETIC_PROFILE_<NAME>_KEY, else the config file's, else none (every
// request to that profile is 401, as Hermes fails closed). Flags add to the file's profiles (decision 0025).
import { usageError } from '../../cli/args.js';

type Profiles = Record<string, { apiKey?: string | null }>;

/** HERMETIC_PROFILE_<NAME>_KEY: the name upper-cased, anything but letters and digits as "_". */
export const profileKeyVariable = (name: string): string => `HERMETIC_PROFILE_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_KEY`;

/**
 * The profiles option from the --profile values, the environment and the config file's profiles.
 * @example profileOptions(['alice=k1', 'bob'], { HERMETIC_PROFILE_BOB_KEY: 'k2' }) // { alice: { apiKey: 'k1' }, bob: { apiKey: 'k2' } }
 */
export function profileOptions(flags: readonly string[], env: NodeJS.ProcessEnv, file: Profiles | undefined): Profiles | undefined {
  if (flags.length === 0 && file === undefined) return undefined;
  const fromFlags = new Map<string, string | null>();
  for (const raw of flags) {
    const eq = raw.indexOf('=');
    const name = eq < 0 ? raw : raw.slice(0, eq);
    const key = eq < 0 ? null : raw.slice(eq + 1);
    if (!/^[^/\s]+$/.test(name)) usageError(`--profile needs NAME or NAME=KEY, NAME one path segment (no "/" or spaces); got "${raw}".`);
    if (key === '') usageError(`--profile ${name}= has an empty key; give --profile ${name}=KEY, or --profile ${name} to take it from ${profileKeyVariable(name)}.`);
    if (fromFlags.has(name)) usageError(`--profile ${name} is given more than once.`);
    fromFlags.set(name, key);
  }
  const out: Profiles = {};
  for (const name of new Set([...Object.keys(file ?? {}), ...fromFlags.keys()])) {
    const apiKey = fromFlags.get(name) ?? (env[profileKeyVariable(name)] || null) ?? file?.[name]?.apiKey ?? null;
    out[name] = { apiKey };
  }
  return out;
}
