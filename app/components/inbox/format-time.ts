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
