// The forwarder's config file (decision 0035): `--config FILE`, else `config.yaml`, `config.yml` or `config.json` in the
// Hermetic home when there is one (two of them are refused). Checked with the same option schemas and did-you-mean
// refusals as the emulator's config; flags add to it (`--sink` adds sinks, `--no-redact` turns redaction off for all).
// Today it holds `sinks:`.
//
//   sinks:
//     - postgres://hermetic@db.internal/fleet        # a URL…
//     - url: sqlite:///mnt/backup/hermetic-copy.db  # …or a mapping: url, redact, options (the sink's own settings)
//       redact: false
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readConfigFile } from '../shared/config-file.js';
import { HermeticError, isHermeticError } from '../shared/errors.js';
import { check, is, optionPath, parseOptions, within } from '../shared/options.js';

export const CONFIG_FILES = ['config.yaml', 'config.yml', 'config.json'] as const;

export interface SinkEntry {
  url: string;
  /** false: rows go out as they are even when they leave the machine; undefined: the default (redacted when they leave it). */
  redact?: boolean;
  /** The sink's own settings (each sink checks them). */
  options?: Readonly<Record<string, unknown>>;
  /** Where the entry was written (`In /home/u/.hermetic/config.yaml, sinks.0`): a refusal of its settings says it. */
  where?: string;
}

const url = check((value, name): string => {
  const s = is.string(value, name);
  if (s.trim() === '') throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must not be empty.`);
  return s;
});

const ENTRY = {
  /** The sink's URL (postgres://…, sqlite:///…, otlp+http://…). */
  url,
  /** false sends rows unredacted even where they leave the machine. */
  redact: is.nullable(is.boolean),
  /** Settings of the sink itself. */
  options: check((value, name): Record<string, unknown> => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be a mapping of settings.`);
    return { ...(value as Record<string, unknown>) };
  }),
};

const sinks = check((value, name): SinkEntry[] => {
  if (!Array.isArray(value)) throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be a list of sink URLs (or mappings with a url).`);
  return value.map((item, i) => within(String(i), () => {
    if (typeof item === 'string') return { url: url(item, 'url') };
    const e = parseOptions('sink', item, ENTRY, { url: '', redact: null, options: {} });
    if (e.url === '') throw new HermeticError('HERMETIC_OPTIONS_INVALID', 'A sink entry needs a "url".');
    return { url: e.url, ...(e.redact === null ? {} : { redact: e.redact }), options: e.options };
  }));
});

export const FORWARDER_CONFIG_SCHEMA = {
  /** Remote sinks fed from the dataset (the same as --sink, repeatable). */
  sinks,
};

export interface ForwarderConfig {
  /** The file read (absolute), or null when there was none. */
  path: string | null;
  sinks: SinkEntry[];
}

/**
 * The config: `explicit` (--config, relative to cwd; it must exist), else the one of CONFIG_FILES in `home` (two of
 * them are refused), else an empty one. Refusals say the file and the key path: `In config.yaml, sinks.1.rdact: Unknown sink option "rdact". Did you mean "redact"?`
 * @example loadForwarderConfig(undefined, '/home/u/.hermetic').sinks
 */
export function loadForwarderConfig(explicit: string | undefined, home: string, cwd: string = process.cwd()): ForwarderConfig {
  const found = explicit === undefined ? CONFIG_FILES.filter((f) => existsSync(join(home, f))) : [];
  // Two of them would leave one silently unread: which is meant is the user's to say.
  if (found.length > 1) {
    throw new HermeticError('HERMETIC_CONFIG_INVALID', `${home} holds ${found.join(' and ')}; keep one (or name it with --config FILE), so no setting is silently left unread.`);
  }
  const name = explicit ?? found[0];
  if (name === undefined) return { path: null, sinks: [] };
  const path = explicit === undefined ? join(home, name) : resolve(cwd, name);
  const value = readConfigFile(explicit ?? path, path);
  if (value === null || value === undefined) return { path, sinks: [] };
  try {
    const parsed = parseOptions('forwarder config', value, FORWARDER_CONFIG_SCHEMA, { sinks: [] });
    return { path, sinks: parsed.sinks.map((e, i) => ({ ...e, where: `In ${explicit ?? path}, sinks.${i}` })) };
  } catch (e) {
    if (!isHermeticError(e)) throw e;
    const at = optionPath(e).join('.');
    throw new HermeticError(e.code, `In ${explicit ?? path}${at ? `, ${at}` : ''}: ${e.message}`);
  }
}
