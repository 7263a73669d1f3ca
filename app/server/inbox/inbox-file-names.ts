/**
 * Names of the inbox's files. One envelope is one file, named so that sorting the names
 * sorts by arrival: `<ms since epoch, 15 digits>-<sequence>-<random>.envelope`.
 * A write goes to a dot-prefixed `.tmp` file first and is renamed into place, so a name
 * ending in `.envelope` always holds a complete envelope (see docs/decisions/0300).
 */

const ENTRY = /^(\d{15})-([0-9a-z]{6})-([0-9a-f]{8})\.envelope$/;
const TEMP = /^\..+\.tmp$/;

export function entryName(receivedMs: number, sequence: number, random: number): string {
  const time = String(Math.max(0, Math.trunc(receivedMs))).padStart(15, '0');
  const seq = (sequence % 36 ** 6).toString(36).padStart(6, '0');
  const rand = (random >>> 0).toString(16).padStart(8, '0');
  return `${time}-${seq}-${rand}.envelope`;
}

export function tempNameFor(entry: string): string {
  return `.${entry}.tmp`;
}

export function isEntryName(name: string): boolean {
  return ENTRY.test(name);
}

export function isTempName(name: string): boolean {
  return TEMP.test(name);
}

/** When the entry arrived, from its name; undefined for names that are not entries. */
export function receivedAtOf(name: string): Date | undefined {
  const match = ENTRY.exec(name);
  return match ? new Date(Number(match[1])) : undefined;
}

/** Entry names, newest first. */
export function newestFirst(names: readonly string[]): string[] {
  return names.filter(isEntryName).sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
}
