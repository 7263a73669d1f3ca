/**
 * How the inbox writes counts and times: the small formatting rules every inbox view shares.
 */

/** "1 envelope", "3 envelopes": a count with its noun, for page text. */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

/**
 * Times on the inbox pages, always in UTC: the server renders them and the browser
 * hydrates them, so a local time zone would make the two disagree.
 */
export function formatUtc(time: string | number | undefined): string {
  if (time === undefined || time === '') return 'unknown time';
  const date = new Date(time);
  if (Number.isNaN(date.getTime())) return 'unknown time';
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** The `dateTime` of a `<time>`: ISO, or nothing for a time that is not one. */
export function isoOf(time: string | number | undefined): string | undefined {
  if (time === undefined || time === '') return undefined;
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
