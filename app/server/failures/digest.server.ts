import { createHash } from 'node:crypto';

/** How many stack frames take part: enough to tell call sites apart, few enough to group. */
const TOP_FRAMES = 5;

/**
 * A short, deterministic fingerprint of an error: the same error thrown from the same place
 * gets the same digest (so repeats group), and the digest is a truncated hash, so nothing of
 * the message can be read back from it. Pure and total: never throws.
 */
export function computeDigest(error: unknown): string {
  return createHash('sha256').update(fingerprintOf(error)).digest('hex').slice(0, 10);
}

/** The text that is hashed: name, message and the top stack frames (not the message line). */
export function fingerprintOf(error: unknown): string {
  try {
    if (error instanceof Error) {
      const frames = String(error.stack ?? '')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line.startsWith('at '))
        .slice(0, TOP_FRAMES);
      return [error.name, error.message, ...frames].join('\n');
    }
    return `${typeof error}\n${String(error)}`;
  } catch {
    return 'unprintable';
  }
}
