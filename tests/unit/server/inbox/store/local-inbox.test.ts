/**
 * The local inbox's link to /health (reportInboxTroublesTo): a trouble noted before the server
 * links it is handed over when it does, and later ones go straight through.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import {
  type InboxTrouble,
  openLocalInbox,
  reportInboxTroublesTo,
} from '#app/server/inbox/store/local-inbox.server';

it('hands /health the troubles noted before the link, then the ones after', () => {
  const root = mkdtempSync(join(tmpdir(), 'local-inbox-'));
  const file = join(root, 'a-file');
  writeFileSync(file, '');
  // A directory under a file cannot be made: the database cannot be opened.
  const unusable = openLocalInbox(join(file, 'inbox'), { maxEvents: 10, maxMb: 8 });
  expect(unusable.problem()).toMatch(/cannot be opened/);

  const noted: Array<[InboxTrouble, string]> = [];
  const cleared: InboxTrouble[] = [];
  reportInboxTroublesTo({
    note: (trouble, detail) => noted.push([trouble, detail]),
    clear: (trouble) => cleared.push(trouble),
  });
  expect(noted).toEqual([['reports-not-stored', 'the inbox database cannot be opened (ENOTDIR)']]);

  openLocalInbox(join(file, 'other'), { maxEvents: 10, maxMb: 8 });
  expect(noted).toHaveLength(2);
});
