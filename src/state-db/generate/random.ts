// Seeded randomness for the generator: a small PRNG (sfc32 over a SHA-256 of the seed) and pickers.
import { createHash } from 'node:crypto';
import type { IdSource } from '../../shared/ids.js';

export class Rng {
  #a: number; #b: number; #c: number; #d: number;
  constructor(seed: string) {
    const h = createHash('sha256').update(`hermetic-statedb\0${seed}`).digest();
    [this.#a, this.#b, this.#c, this.#d] = [h.readUInt32LE(0), h.readUInt32LE(4), h.readUInt32LE(8), h.readUInt32LE(12)];
    for (let i = 0; i < 12; i++) this.next();
  }

  /** Uniform in [0, 1). */
  next(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  hex(n: number): string {
    let s = '';
    while (s.length < n) s += Math.floor(this.next() * 0x100000000).toString(16).padStart(8, '0');
    return s.slice(0, n);
  }

  /** An IdSource drawing from this stream (uuid4-shaped). */
  idSource(): IdSource {
    return {
      seeded: true,
      uuid4Hex: () => {
        const h = this.hex(32).split('');
        h[12] = '4';
        h[16] = '89ab'[parseInt(h[16]!, 16) & 3]!;
        return h.join('');
      },
    };
  }
}
