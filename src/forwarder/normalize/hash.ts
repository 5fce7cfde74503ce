// A 64-bit rolling hash in two independent 32-bit lanes: what the forwarder keeps instead of the text it hashed (a
// transcript's tail, a long session's row identities).

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);

/** Two independent 32-bit lanes (FNV-1a, and a multiply-xorshift): 64 bits, so two different transcripts do not meet. */
export class Lanes {
  a: number;
  b: number;
  constructor(hex?: string) {
    this.a = hex ? Number.parseInt(hex.slice(0, 8), 16) : 0x811c9dc5;
    this.b = hex ? Number.parseInt(hex.slice(8, 16), 16) : 0x2545f491;
  }

  feed(s: string): void {
    let a = this.a;
    let b = this.b;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x85ebca6b);
      b ^= b >>> 13;
    }
    this.#end(a, b);
  }

  /** A number, by the two halves of its float64 bits (no formatting: a backfill feeds one per message). */
  num(x: number): void {
    F64[0] = x;
    this.#end(Math.imul(Math.imul(this.a ^ U32[0]!, 0x01000193) ^ U32[1]!, 0x01000193), Math.imul(Math.imul(this.b ^ U32[1]!, 0x85ebca6b) ^ U32[0]!, 0x85ebca6b));
  }

  /** A separator no text holds closes each value, so ["ab", "c"] and ["a", "bc"] differ. */
  #end(a: number, b: number): void {
    b ^= b >>> 13;
    this.a = Math.imul(a ^ 0xffff, 0x01000193) >>> 0;
    this.b = (Math.imul(b ^ 0xffff, 0x85ebca6b) ^ (b >>> 16)) >>> 0;
  }

  hex(): string {
    return (this.a >>> 0).toString(16).padStart(8, '0') + (this.b >>> 0).toString(16).padStart(8, '0');
  }
}
