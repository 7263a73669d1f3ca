/**
 * Release health when the SDK loads late, or never (decision 0950): the page starts its session
 * and sends it without the SDK (page-session.ts); the SDK, if it loads, continues that session
 * (same id, no second `init`), so that an error counts, and an uncaught one marks it `unhandled`,
 * as the browser SDK does. In place of the SDK's browserSession integration, whose default (one
 * session a page load, sent once the page is idle, again when the user changes) this keeps,
 * minus the start.
 */
import {
  captureSession,
  defineIntegration,
  getIsolationScope,
  startSession,
  updateSession,
} from '@sentry/core';
import type { PageSession } from './page-session';

export const adoptedSessionIntegration = defineIntegration((page: PageSession) => ({
  // The SDK's own name: there must never be both.
  name: 'BrowserSession',
  setupOnce() {
    const session = startSession({ ignoreDuration: true });
    // As the page left it: errors sent without the SDK already count (start-browser-monitoring.ts).
    updateSession(session, {
      sid: page.sid,
      started: page.started,
      init: false,
      status: page.status,
      errors: page.errors,
    });
    const isolationScope = getIsolationScope();
    let user = isolationScope.getUser();
    isolationScope.addScopeListener((scope) => {
      const next = scope.getUser();
      if (next?.id !== user?.id || next?.ip_address !== user?.ip_address) {
        user = next;
        captureSession();
      }
    });
  },
}));
