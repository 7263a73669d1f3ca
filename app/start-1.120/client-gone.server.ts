import { getEvent } from '@tanstack/react-start/server';

/** Whether the visitor went away before the response was finished, and a hook for when they do. */
export interface ClientWatch {
  gone(): boolean;
  onGone(listener: () => void): void;
}

/**
 * Watches the Node response for a visitor who leaves before it is finished. Start 1.120 builds
 * the handler's Request without a signal (h3's toWebRequest), so `request.signal` never aborts:
 * this watches the response instead, so that rendering stops for nobody. A plain listener, not
 * an AbortController: creating and aborting one per page showed in the pages' CPU profile.
 */
export function watchClient(): ClientWatch {
  const res = getEvent().node.res;
  let gone = false;
  const listeners: Array<() => void> = [];
  res.once('close', () => {
    if (res.writableFinished) return;
    gone = true;
    for (const listener of listeners) listener();
  });
  return {
    gone: () => gone,
    onGone: (listener) => {
      if (gone) listener();
      else listeners.push(listener);
    },
  };
}
