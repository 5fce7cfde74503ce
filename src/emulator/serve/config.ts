// `hermetic serve --config FILE`: one JSON or YAML file holding any createEmulator option (checked by the same schema,
// with the same did-you-mean errors) and the server's own keys. Relative paths in it are relative to its folder.
// Precedence is decided by the caller (cli.ts): flags > environment > this file > defaults (decision 0025).
import { dirname, isAbsolute, resolve } from 'node:path';
import { readConfigFile } from '../../shared/config-file.js';
import { HermeticError, isHermeticError } from '../../shared/errors.js';
import { check, is, optionPath, suggest, type Check } from '../../shared/options.js';
import { loadFaultFile } from '../faults/file.js';
import { EMULATOR_OPTION_NAMES, parseEmulatorOptions, type EmulatorOptions } from '../options.js';

const nonEmpty = check((value, name): string => {
  const s = is.string(value, name);
  if (s === '') throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must not be empty.`);
  return s;
});

/** Keys only `hermetic serve` reads (the rest of a config file is createEmulator's options). */
export const SERVER_SCHEMA = {
  /** Port to listen on (default 8642; 0 picks a free one). */
  port: is.port,
  /** Address to bind (default 127.0.0.1); beyond loopback it needs adminKey or insecureAdmin. */
  host: nonEmpty,
  /** Serve beyond loopback without an admin key (an open control plane on the network). */
  insecureAdmin: is.boolean,
  /** Print no line per request (--quiet). */
  quiet: is.boolean,
} satisfies Record<string, Check<unknown, any>>;

export type ServerFileOptions = { -readonly [K in keyof typeof SERVER_SCHEMA]?: ReturnType<(typeof SERVER_SCHEMA)[K]> };

/** createEmulator options a file cannot hold: they are code, not data. */
export const CODE_ONLY_OPTIONS: Readonly<Record<string, string>> = {
  clock: 'a ControlledClock object (a file sets the clock with "time" and "frozen")',
  onInternalError: 'a function',
  onRequest: 'a function',
};

/**
 * Options that may name files: a relative path in a config file is relative to the file's folder. `faults` is a list
 * of rules, or (in a file only) the path of a JSON file of them, as `--faults FILE` reads.
 */
export const PATH_OPTIONS = ['db', 'stateDb', 'stateHome', 'scenarios', 'faults'] as const;

export interface ConfigFile {
  /** The file as named on the command line, and where it was found. */
  readonly name: string;
  readonly path: string;
  readonly server: ServerFileOptions;
  /** createEmulator options as written (paths resolved), already checked by the option schema. */
  readonly emulator: EmulatorOptions;
}

function refuse(name: string, message: string): never {
  throw new HermeticError('HERMETIC_CONFIG_INVALID', `Config file ${name} ${message}`);
}

/** An option error from the schema, said again with the file and the key path in front (same code). */
function located(name: string, e: unknown, outer: string[] = []): never {
  if (!isHermeticError(e)) throw e;
  const path = [...outer, ...optionPath(e)].join('.');
  throw new HermeticError(e.code, `In ${name}${path ? `, ${path}` : ''}: ${e.message}`);
}

/**
 * Reads and checks a `--config` file: every key known (server keys, then createEmulator's options), every value
 * valid, relative paths made absolute against the file's folder. Throws HERMETIC_CONFIG_INVALID for a file that is
 * not a readable JSON/YAML mapping, and HERMETIC_OPTIONS_UNKNOWN/_INVALID (prefixed "In FILE, key.path:") for options.
 * @example loadConfig('hermetic.yaml').emulator.maxConcurrentRuns
 */
export function loadConfig(name: string, cwd: string = process.cwd()): ConfigFile {
  const path = resolve(cwd, name);
  const value = readConfigFile(name, path);
  // An empty file (or one of comments only) is an empty configuration.
  if (value === null || value === undefined) return { name, path, server: {}, emulator: {} };
  if (typeof value !== 'object' || Array.isArray(value)) {
    refuse(name, `must be a mapping of option names to values (like {"port": 8642}); its top level is ${Array.isArray(value) ? 'a list' : `a ${typeof value}`}.`);
  }
  const known = [...Object.keys(SERVER_SCHEMA), ...EMULATOR_OPTION_NAMES.filter((k) => !(k in CODE_ONLY_OPTIONS))];
  const server: Record<string, unknown> = {};
  const emulator: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(value as Record<string, unknown>)) {
    if (Object.hasOwn(CODE_ONLY_OPTIONS, key)) {
      refuse(name, `sets "${key}", which is ${CODE_ONLY_OPTIONS[key]}: only code can give it (createEmulator({ ${key} })).`);
    }
    if (Object.hasOwn(SERVER_SCHEMA, key)) {
      try {
        server[key] = SERVER_SCHEMA[key as keyof typeof SERVER_SCHEMA](raw, key);
      } catch (e) {
        located(name, e, [key]);
      }
    } else if ((EMULATOR_OPTION_NAMES as readonly string[]).includes(key)) {
      const relative = (PATH_OPTIONS as readonly string[]).includes(key) && typeof raw === 'string' && raw !== ':memory:' && raw !== '' && !isAbsolute(raw);
      emulator[key] = relative ? resolve(dirname(path), raw as string) : raw;
      if (key === 'faults' && typeof raw === 'string') {
        try {
          emulator[key] = loadFaultFile(emulator[key] as string, raw);
        } catch (e) {
          located(name, e, [key]);
        }
      }
    } else {
      const hint = suggest(key, known);
      throw new HermeticError(
        'HERMETIC_OPTIONS_UNKNOWN',
        `In ${name}, ${key}: Unknown option "${key}".${hint ? ` Did you mean "${hint}"?` : ` Known options: ${known.join(', ')}.`}`,
      );
    }
  }
  try {
    parseEmulatorOptions(emulator as EmulatorOptions);
  } catch (e) {
    located(name, e);
  }
  return { name, path, server: server as ServerFileOptions, emulator: emulator as EmulatorOptions };
}
