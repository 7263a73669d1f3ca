import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = join(import.meta.dirname, '../../../docs/decisions');
const records = readdirSync(DIR).filter((name) => /^\d{4}-.*\.md$/.test(name));
const index = readFileSync(join(DIR, 'README.md'), 'utf8');

describe('docs/decisions/README.md', () => {
  it.each(records)('lists %s, with the status the record gives', (name) => {
    const row = index.split('\n').find((line) => line.includes(`](${name})`));
    expect(row, `${name} is missing from the index`).toBeDefined();
    const superseded = readFileSync(join(DIR, name), 'utf8').includes('**Superseded**');
    expect(row).toMatch(superseded ? /\|\s*superseded/ : /\|\s*accepted\s*\|/);
  });
});
