// Which namespace a request is for: the x-hermetic-namespace header, or a /ns/<name> prefix in front of any Hermes or
// admin route (for clients that can only be given a base URL). No selector: the default namespace.
import { HermeticError } from '../../shared/errors.js';
import type { HttpRequest } from '../http.js';

export const DEFAULT_NAMESPACE = 'default';
export const NAMESPACE_HEADER = 'x-hermetic-namespace';
export const NAMESPACE_PREFIX = '/ns/';

/** Letters, digits, '.', '_' and '-', 1 … 64 of them, starting with a letter or digit (safe in a path and a label). */
export const NAMESPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function namespaceProblem(name: string): string | null {
  if (NAMESPACE_NAME.test(name)) return null;
  return `"${name.length > 80 ? `${name.slice(0, 80)}…` : name}" is not a namespace name: use 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`;
}

export interface Selection {
  readonly name: string;
  /** The request path with the /ns/<name> prefix removed. */
  readonly path: string;
}

/** The namespace a request names and the path its routes see; HERMETIC_NAMESPACE_INVALID for a bad name. */
export function selectNamespace(req: HttpRequest): Selection {
  let path = req.path;
  let fromPath: string | null = null;
  if (path.startsWith(NAMESPACE_PREFIX)) {
    const end = path.indexOf('/', NAMESPACE_PREFIX.length);
    fromPath = path.slice(NAMESPACE_PREFIX.length, end < 0 ? undefined : end);
    path = end < 0 ? '/' : path.slice(end);
    const problem = namespaceProblem(fromPath);
    if (problem) throw new HermeticError('HERMETIC_NAMESPACE_INVALID', `The path prefix /ns/${fromPath}: ${problem}.`);
  }
  const header = req.header(NAMESPACE_HEADER);
  if (header !== undefined) {
    const problem = namespaceProblem(header);
    if (problem) throw new HermeticError('HERMETIC_NAMESPACE_INVALID', `The ${NAMESPACE_HEADER} header: ${problem}.`);
    if (fromPath !== null && fromPath !== header) {
      throw new HermeticError(
        'HERMETIC_NAMESPACE_INVALID',
        `The ${NAMESPACE_HEADER} header says "${header}" but the path prefix says "${fromPath}"; give one, or the same name in both.`,
      );
    }
  }
  return { name: fromPath ?? header ?? DEFAULT_NAMESPACE, path };
}
