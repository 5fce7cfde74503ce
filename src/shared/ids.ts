// Seedable id minting: every random id in Hermetic comes from here, so a seed makes a whole session repeatable.
import { createHash, randomUUID } from 'node:crypto';

export interface IdSource {
  /** 32 lowercase hex digits of a UUID v4 (13th digit 4, 17th in 8-b), like Python's uuid.uuid4().hex. */
  uuid4Hex(): string;
  /** True when the stream is deterministic (a seed was given). */
  readonly seeded: boolean;
  /** How many ids a seeded stream has drawn (0 for random ids); seek() goes back to such a point (a checkpoint). */
  readonly position?: number;
  seek?(position: number): void;
}

function formatV4(bytes: Uint8Array): string {
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return Buffer.from(bytes.buffer, bytes.byteOffset, 16).toString('hex');
}

/** Random ids from the OS, or a deterministic stream when a seed is given (SHA-256 counter mode). */
export function createIdSource(seed?: string): IdSource {
  // randomUUID draws from a pre-filled entropy cache: far cheaper per id than randomBytes(16).
  if (seed === undefined) return { uuid4Hex: () => randomUUID().replace(/-/g, ''), seeded: false };
  let counter = 0;
  return {
    seeded: true,
    get position() {
      return counter;
    },
    seek(position: number) {
      counter = position;
    },
    uuid4Hex: () => {
      const digest = createHash('sha256').update(`${seed}\0${counter++}`).digest();
      return formatV4(new Uint8Array(digest.subarray(0, 16)));
    },
  };
}
