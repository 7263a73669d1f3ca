/**
 * docs/decisions/README.md is how a newcomer finds out which decisions still hold. Records are
 * superseded, never amended: so the index must list every record with the status and date the
 * record itself gives, and a "superseded by" must name records that exist and own up to it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = join(import.meta.dirname, '../../../docs/decisions');
const records = readdirSync(DIR).filter((name) => /^\d{4}-.*\.md$/.test(name));
const index = readFileSync(join(DIR, 'README.md'), 'utf8');
const rows = index.split('\n').filter((line) => /^\| \[\d{4}\]\(/.test(line));

function recordText(name: string): string {
  return readFileSync(join(DIR, name), 'utf8');
}

/** The cells of an index row: record link, decision, status, date. */
function cellsOf(row: string): string[] {
  return row
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());
}

function fileOfNumber(number: string): string | undefined {
  return records.find((name) => name.startsWith(`${number}-`));
}

describe('docs/decisions/README.md', () => {
  it.each(records)('lists %s, with the status and date the record gives', (name) => {
    const row = rows.find((line) => line.includes(`](${name})`));
    expect(row, `${name} is missing from the index`).toBeDefined();
    const [, , status = '', date = ''] = cellsOf(row ?? '');
    const text = recordText(name);
    const statusLine = text.split('\n\n').find((paragraph) => paragraph.startsWith('**Status:**'));
    expect(statusLine, `${name} has no **Status:** line`).toBeDefined();
    expect(status).toMatch(text.includes('**Superseded**') ? /^superseded\b/ : /^accepted$/);
    expect(statusLine, `${name}: the index gives ${date}`).toMatch(
      new RegExp(`[Aa]ccepted,? ${date}`),
    );
  });

  it.each(rows.map((row) => [cellsOf(row)[0], row]))('%s links to a record', (_link, row) => {
    const file = /\]\(([^)]+)\)/.exec(row)?.[1] ?? '';
    expect(existsSync(join(DIR, file)), `${file} does not exist`).toBe(true);
  });

  const superseded = rows
    .map(cellsOf)
    .filter(([, , status = '']) => status.startsWith('superseded'))
    .map(([link = '', , status = '']) => ({
      old: /\[(\d{4})\]/.exec(link)?.[1] ?? '',
      by: status.match(/\d{4}/g) ?? [],
    }));

  it('marks some records superseded, each by at least one other', () => {
    expect(superseded.length).toBeGreaterThan(0);
    for (const { old, by } of superseded) expect(by, old).not.toHaveLength(0);
  });

  it.each(superseded)(
    '$old: each record superseding it exists, links it, and is linked',
    ({ old, by }) => {
      const oldFile = fileOfNumber(old) ?? '';
      for (const number of by) {
        const newFile = fileOfNumber(number);
        expect(newFile, `${old} is superseded by ${number}, which does not exist`).toBeDefined();
        expect(recordText(newFile ?? ''), `${number} should name ${old}`).toContain(
          `](${oldFile})`,
        );
        expect(recordText(oldFile), `${old} should link ${number}`).toContain(`](${newFile})`);
      }
    },
  );
});
