/** Whether this process has begun its graceful shutdown: one flag per process. */
import { processShared } from '#app/server/process-shared.server';

const state = processShared('shutdown-state', () => ({ shuttingDown: false }));

export function isShuttingDown(): boolean {
  return state.shuttingDown;
}

export function markShuttingDown(): void {
  state.shuttingDown = true;
}
