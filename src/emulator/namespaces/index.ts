// The emulator's namespaces: created on first use, listed, reset one or all, closed together. The default namespace
// always exists; a reset of every namespace keeps it (reset) and forgets the others (they come back on first use).
import { DEFAULT_NAMESPACE } from './names.js';
import { Namespace, type NamespaceShared } from './namespace.js';

export { DEFAULT_NAMESPACE, NAMESPACE_HEADER, NAMESPACE_PREFIX, namespaceProblem, selectNamespace } from './names.js';
export { Namespace } from './namespace.js';

export class Namespaces {
  readonly #all = new Map<string, Namespace>();
  readonly #shared: NamespaceShared;
  readonly default: Namespace;

  constructor(shared: Omit<NamespaceShared, 'namespaces'>) {
    this.#shared = { ...shared, namespaces: () => this };
    this.default = new Namespace(DEFAULT_NAMESPACE, this.#shared);
    this.#all.set(DEFAULT_NAMESPACE, this.default);
  }

  /** The namespace called `name` (a valid name: see names.ts), created if this is its first use. */
  get(name: string): Namespace {
    let ns = this.#all.get(name);
    if (!ns) {
      ns = new Namespace(name, this.#shared);
      this.#all.set(name, ns);
    }
    return ns;
  }

  /** Without creating it. */
  find(name: string): Namespace | undefined {
    return this.#all.get(name);
  }

  /** Every namespace, the default first, then in order of first use. */
  list(): Namespace[] {
    return [...this.#all.values()];
  }

  get size(): number {
    return this.#all.size;
  }

  /** Resets every namespace: the default starts over, the others are closed and forgotten. */
  resetAll(): void {
    for (const ns of this.#all.values()) {
      if (ns === this.default) continue;
      ns.close();
      this.#all.delete(ns.name);
    }
    this.default.reset();
  }

  close(): void {
    for (const ns of this.#all.values()) ns.close();
    this.#all.clear();
  }
}
