// Hermetic's own version (package.json), read once; the same file is two folders up from src/shared and dist/shared.
import { readFileSync } from 'node:fs';

export const HERMETIC_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The Hermes release the emulator reproduces (its version string is HERMES_VERSION in emulator/api/meta.ts). */
export const HERMES_RELEASE = 'v2026.8.31';
