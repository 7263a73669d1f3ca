/**
 * Times on the inbox pages, always in UTC: the server renders them and the browser
 * hydrates them, so a local time zone would make the two disagree.
 */
export function formatUtc(iso: string | undefined): string {
  if (!iso) return 'unknown time';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return 'unknown time';
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
