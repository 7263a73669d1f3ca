/**
 * STUB of the inbox helper's module (thrown away at merge in favour of the real one):
 * the same exported signature, appending each envelope as a file in the inbox dir.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serverConfig } from '../env.server';

export interface InboxStore {
  /** Stores one envelope (raw bytes) atomically; resolves once it is durable. */
  append(envelope: Uint8Array): Promise<void>;
}

let store: InboxStore | undefined;

/** The process-wide inbox at serverConfig().monitoring.inboxDir (local inbox mode only). */
export function localInbox(): InboxStore {
  if (store) return store;
  const { monitoring } = serverConfig();
  const dir = monitoring.kind === 'local-inbox' ? monitoring.inboxDir : '.data/inbox';
  let sequence = 0;
  store = {
    async append(envelope) {
      await mkdir(dir, { recursive: true });
      sequence += 1;
      await writeFile(join(dir, `${Date.now()}-${process.pid}-${sequence}.envelope`), envelope);
    },
  };
  return store;
}
