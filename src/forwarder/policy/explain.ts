// A verdict as lines a person reads (`hermetic policy check PATH`).
import { DOTFILE_NAME } from './dotfile.js';
import type { Verdict } from './resolve.js';

/**
 * @example explainPolicy(policy.resolve('/home/u/p'))
 * // ['class: local-only', 'scope: /home/u/p', 'governing file: /home/u/p/.hypignore', 'declared token: local-only',
 * //  'list entry: none', 'reason: /home/u/p/.hypignore says local-only']
 */
export function explainPolicy(verdict: Verdict): string[] {
  const lines = [`class: ${verdict.class}`, `scope: ${verdict.scope ?? 'none'}`, `governing file: ${verdict.governingFile ?? 'none'}`];
  if (verdict.governingFile !== null) {
    const unreadable = verdict.declared === null && verdict.clamped;
    lines.push(`declared token: ${verdict.declared ?? (unreadable ? 'unknown (the file cannot be read)' : 'none (empty or comment-only file)')}`);
  }
  lines.push(`list entry: ${verdict.listEntry ?? 'none'}`);
  if (verdict.clamped) lines.push(`warning: ${clampWarning(verdict)}`);
  lines.push(`reason: ${verdict.reason}`);
  return lines;
}

function clampWarning(v: Verdict): string {
  if (v.governingFile === null) return 'fail-safe applied; treated as ignore';
  if (v.declared === null) return `${v.governingFile} exists but cannot be read; treated as ignore (fail-safe)`;
  return `"${v.declared}" is not a ${DOTFILE_NAME} class (only ignore and local-only are); clamped to ignore (fail-safe)`;
}
