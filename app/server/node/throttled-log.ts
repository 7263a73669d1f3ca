/**
 * A warning that may fire thousands of times a second under attack or overload (refused
 * connections, shed requests): the first one is logged, then at most one line per interval
 * with how many happened since. One line per episode, never a flood.
 */
export function throttledWarning(
  intervalMs: number,
  write: (line: string) => void,
  now: () => number = Date.now,
): (line: string) => void {
  let lastAt = Number.NEGATIVE_INFINITY;
  let skipped = 0;
  return (line) => {
    const at = now();
    if (at - lastAt < intervalMs) {
      skipped++;
      return;
    }
    write(skipped > 0 ? `${line} (and ${skipped} more since the last line)` : line);
    lastAt = at;
    skipped = 0;
  };
}
