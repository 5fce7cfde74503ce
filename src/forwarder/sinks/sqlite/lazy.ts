// The embedded dataset opened on first use: a pass that writes nothing (every store missing or failing) creates no
// hermetic.db (issue 16 §5). Reading cursors opens an existing file; a missing one has none to give. A home with no
// dataset gets its first one built aside and published at the end of the pass (first-build.ts, decision 0058).
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { HermeticError } from '../../../shared/errors.js';
import { BuildDropped, type Batch, type Cursors, type Sink, type Written } from '../sink.js';
import { DATASET_FILE, type DatasetOptions } from './dataset.js';
import { sweepBuilds } from './build-files.js';
import { BuildSync } from './build-sync.js';
import { BUILD_ASIDE_MESSAGES, publishBuild, startBuild } from './first-build.js';
import { SqliteSink } from './sink.js';

export interface LazyOptions extends DatasetOptions {
  /** Messages a first dataset is built aside for before it is published mid-pass; 0 writes it in place from the start. */
  buildAside?: number;
}

export class LazySqliteSink implements Sink {
  readonly home: string;
  #sink: SqliteSink | null = null;
  /** While the first dataset is being built aside: the messages written into it so far. */
  #building: { messages: number; sync: BuildSync | null } | null = null;
  /** Connections swapped (a build published): part of the data version, so cached cursors are loaded again. */
  #swaps = 0;
  #closed = false;
  #swept = false;
  /** Device and inode of the dataset file last opened or published here (null: none yet). */
  #identity: string | null = null;
  readonly #buildAside: number;

  constructor(
    home: string,
    private readonly options: LazyOptions = {},
  ) {
    this.home = home;
    this.#buildAside = options.buildAside ?? BUILD_ASIDE_MESSAGES;
  }

  /** The dataset in place, opened (created when missing), its file's identity kept for replaced(). */
  #open(): SqliteSink {
    const sink = SqliteSink.open(this.home, this.options);
    this.#identity = fileIdentity(join(this.home, DATASET_FILE));
    return sink;
  }

  /** The dataset (or the build) when it exists, opened now if it was not; else null. */
  #existing(): SqliteSink | null {
    if (!this.#sink && existsSync(join(this.home, DATASET_FILE))) this.#sink = this.#open();
    return this.#sink;
  }

  /**
   * Whether the dataset this sink has open was removed or replaced since it was opened (the home deleted while a
   * forwarder runs, a backup restored over it): then it is closed, and the next write opens or creates the file that
   * is there now, instead of writing on into one nobody can see.
   */
  replaced(): boolean {
    if (this.#building !== null || this.#identity === null) return false;
    if (fileIdentity(join(this.home, DATASET_FILE)) === this.#identity) return false;
    this.#sink?.close();
    this.#sink = null;
    this.#identity = null;
    this.#swaps++;
    return true;
  }

  /** The dataset (or the build) when it exists, opened now if it was not; else null (nothing is created). */
  existing(): SqliteSink | null {
    return this.#existing();
  }

  /** The dataset itself, opened (and created) now if it was not: for tests and tools that read it directly. */
  dataset(): SqliteSink {
    this.#sink ??= this.#open();
    return this.#sink;
  }

  /** Whether the dataset file is open (a write, or a cursor read of an existing file, opened it). */
  get opened(): boolean {
    return this.#sink !== null;
  }

  write(batch: Batch): Written {
    if (!this.#swept) {
      // The files of builds killed before they were published are removed by the next process that writes.
      sweepBuilds(this.home);
      this.#swept = true;
    }
    if (!this.#existing()) {
      if (this.#buildAside > 0) {
        this.#sink = startBuild(this.home, this.options);
        this.#building = { messages: 0, sync: BuildSync.open(this.#sink.db.name) };
      } else this.#sink = this.#open();
    }
    const written = this.#sink!.write(batch);
    if (this.#building && (this.#building.messages += written.messagesAdded) >= this.#buildAside) this.#publish();
    else this.#building?.sync?.nudge();
    return written;
  }

  /**
   * The build published. BuildDropped when it could not be: another process created the dataset meanwhile (`lost`),
   * or publishing failed; either way the build is gone, and the pass that wrote it must stop there.
   */
  #publish(): void {
    const build = this.#sink!;
    const sync = this.#building!.sync;
    this.#sink = null;
    this.#building = null;
    this.#swaps++;
    let published: boolean;
    try {
      published = publishBuild(build, this.home, sync);
    } catch (e) {
      if (e instanceof HermeticError) throw new BuildDropped(e);
      throw e;
    }
    if (!published) throw new BuildDropped('lost');
    this.#identity = fileIdentity(join(this.home, DATASET_FILE));
  }

  /** The end of a pass: a build is published (BuildDropped when it cannot be: pipeline/passes.ts runs the pass again, or fails it). */
  settle(): void {
    if (this.#building) this.#publish();
  }

  /** A quiet forward pass: the dataset's WAL copied into its file (never a build's, which has none). */
  quiet(): void {
    if (this.#building === null) this.#sink?.quiet();
  }

  cursors(store: string): Cursors {
    return this.#existing()?.cursors(store) ?? { row: null, identity: null, maxMessageId: 0, usageStamp: null, sessions: new Map(), quarantine: new Map() };
  }

  /** 0 while there is no dataset: the first write opens it, and its own data version then differs (cursors reload). */
  dataVersion(): number {
    const v = this.#existing()?.dataVersion();
    return v === undefined ? 0 : this.#swaps * 2 ** 32 + v;
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

  /**
   * Publishes a build still under way (a pass that threw: what it holds was committed batch by batch), then closes
   * the dataset. A build that cannot be published is dropped: nothing of it was acknowledged.
   */
  close(): void {
    this.#closed = true;
    try {
      if (this.#building) this.#publish();
    } catch (e) {
      if (!(e instanceof BuildDropped)) throw e;
    }
    this.#sink?.close();
  }
}

/** A file's device and inode, or null when it is not there. */
function fileIdentity(path: string): string | null {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}
