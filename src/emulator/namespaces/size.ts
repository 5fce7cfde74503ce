// About how many bytes of memory a value holds: what the checkpoints of a namespace count against their budget
// (checkpoints.ts). An estimate, walked once over the value (each object counted once, so shared parts and cycles
// cost nothing twice); strings count two bytes a character, as V8 stores the widest of them.

const OBJECT = 32;
const SLOT = 8;

/**
 * @example estimateBytes({ rows: [{ id: 'run_1' }] }) // a few hundred
 */
export function estimateBytes(value: unknown): number {
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  let total = 0;
  while (stack.length > 0) {
    const v = stack.pop();
    switch (typeof v) {
      case 'string':
        total += 16 + v.length * 2;
        continue;
      case 'number':
      case 'boolean':
        total += SLOT;
        continue;
      case 'bigint':
        total += 16 + SLOT * Math.ceil(v.toString(16).length / 16);
        continue;
      case 'object':
        break;
      default:
        continue;
    }
    if (v === null || seen.has(v)) continue;
    seen.add(v);
    if (ArrayBuffer.isView(v)) {
      total += OBJECT + v.byteLength;
    } else if (v instanceof Map) {
      total += OBJECT + v.size * 3 * SLOT;
      for (const [k, item] of v) stack.push(k, item);
    } else if (v instanceof Set) {
      total += OBJECT + v.size * 2 * SLOT;
      for (const item of v) stack.push(item);
    } else if (Array.isArray(v)) {
      total += OBJECT + v.length * SLOT;
      for (const item of v) stack.push(item);
    } else {
      // A property name is shared by every object that has it (V8 interns them): a slot each, not a string.
      const values = Object.values(v);
      total += OBJECT + values.length * 2 * SLOT;
      for (const item of values) stack.push(item);
    }
  }
  return total;
}
