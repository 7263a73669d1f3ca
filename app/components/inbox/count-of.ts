/** "1 envelope", "3 envelopes": a count with its noun, for page text. */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
