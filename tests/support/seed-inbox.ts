/**
 * Writes envelopes into a fresh inbox directory the way the store names them, without
 * importing the store (it reads package.json through env.server.ts, which Playwright's
 * loader cannot import). Returns the directory for MONITORING_INBOX_DIR.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { entryName } from '#app/server/inbox/inbox-file-names';

export function seedInbox(envelopes: Uint8Array[]): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'inbox-seed-')), 'inbox');
  mkdirSync(dir, { recursive: true });
  const start = Date.now() - envelopes.length * 1000;
  envelopes.forEach((bytes, index) => {
    writeFileSync(join(dir, entryName(start + index * 1000, index, index)), bytes);
  });
  return dir;
}
