/**
 * STUB for the tunnel branch: the inbox helper owns this module and replaces it at merge.
 * Same exported signature as the shared inbox contract; stores one file per envelope.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serverConfig } from '../env.server';

export interface InboxStore {
  /** Stores one envelope (raw bytes) atomically; resolves once it is durable. */
  append(envelope: Uint8Array): Promise<void>;
}

let inbox: InboxStore | undefined;

/** The process-wide inbox at serverConfig().monitoring.inboxDir (local inbox mode only). */
export function localInbox(): InboxStore {
  if (inbox) return inbox;
  const { monitoring } = serverConfig();
  const dir = monitoring.kind === 'local-inbox' ? monitoring.inboxDir : '.data/inbox';
  inbox = {
    async append(envelope) {
      await mkdir(dir, { recursive: true });
      const name = `${Date.now()}-${randomUUID()}.envelope`;
      await writeFile(join(dir, `.${name}.tmp`), envelope);
      await rename(join(dir, `.${name}.tmp`), join(dir, name));
    },
  };
  return inbox;
}
