// The forwarder's usage policy: which scopes are ignored, kept local, or exported (spec forwarding §4).
export { isStricter, rank, strictest, type PolicyClass } from './classes.js';
export { DOTFILE_NAME, parseDotfile, readDotfile, type DotfileVerdict } from './dotfile.js';
export { isWithin, localListPath, matchLocalList, parseLocalList, readLocalList, type ListEntry, type LocalList } from './local-list.js';
export { createPolicyResolver, type PolicyResolver, type PolicyResolverOptions, type Verdict } from './resolve.js';
export { explainPolicy } from './explain.js';
export { realPath } from './io.js';
export { spellings } from './spellings.js';
export type { ReadTextFile, RealPath } from './io.js';
