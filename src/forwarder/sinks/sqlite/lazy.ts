// The embedded dataset opened on first use: a pass that writes nothing (every store missing or failing) creates no
// hermetic.db (issue 16 §5). Reading cursors opens an existing file; a missing one has none to give.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Batch, Cursors, Sink, Written } from '../sink.js';
import { DATASET_FILE, type DatasetOptions } from './dataset.js';
import { SqliteSink } from './sink.js';

export class LazySqliteSink implements Sink {
  readonly home: string;
  #sink: SqliteSink | null = null;
  #closed = false;

  constructor(
    home: string,
    private readonly options: DatasetOptions = {},
  ) {
    this.home = home;
  }

  /** The dataset when it exists (opened now if it was not), else null. */
  #existing(): SqliteSink | null {
    if (!this.#sink && existsSync(join(this.home, DATASET_FILE))) this.#sink = SqliteSink.open(this.home, this.options);
    return this.#sink;
  }

  /** The dataset itself, opened (and created) now if it was not: for tests and tools that read it directly. */
  dataset(): SqliteSink {
    this.#sink ??= SqliteSink.open(this.home, this.options);
    return this.#sink;
  }

  /** Whether the dataset file is open (a write, or a cursor read of an existing file, opened it). */
  get opened(): boolean {
    return this.#sink !== null;
  }

  write(batch: Batch): Written {
    return this.dataset().write(batch);
  }

  cursors(store: string): Cursors {
    return this.#existing()?.cursors(store) ?? { row: null, identity: null, maxMessageId: 0, usageStamp: null, sessions: new Map(), quarantine: new Map() };
  }

  /** 0 while there is no dataset: the first write opens it, and its own data version then differs (cursors reload). */
  dataVersion(): number {
    return this.#existing()?.dataVersion() ?? 0;
  }

  /** No dataset yet (or closed: nothing is opened again for it): no store known. */
  storeKeys(): string[] {
    if (this.#closed) return [];
    return this.#existing()?.storeKeys() ?? [];
  }

  /** No dataset yet: nothing to remember. */
  redacts(): boolean {
    return this.#existing()?.redacts() ?? false;
  }

  close(): void {
    this.#closed = true;
    this.#sink?.close();
  }
}
