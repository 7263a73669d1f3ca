import { getEvent } from '@tanstack/react-start/server';

/**
 * A signal that aborts when the visitor goes away before the response is finished. Start 1.120
 * builds the handler's Request without a signal (h3's toWebRequest), so `request.signal` never
 * aborts: this watches the Node response instead, so that rendering stops for nobody.
 */
export function abortWhenClientLeaves(): AbortSignal {
  const controller = new AbortController();
  const res = getEvent().node.res;
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
