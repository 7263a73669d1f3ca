/**
 * The SDK's inbound filter (`EventFilters`) lets a "Script error." with detail through. Its
 * built-in message patterns drop every "Script error." (core's `DEFAULT_IGNORE_ERRORS`), while
 * only the one without a stack or a location is noise (filters.ts). So the SDK's own filter is
 * kept, twice: with its defaults for every event, and without them for a "Script error." with
 * detail, which still goes through the options' `ignoreErrors`, `denyUrls` and `allowUrls`.
 * None of the other default patterns could match "Script error." anyway.
 */

import { eventFiltersIntegration } from '@sentry/browser';
import type { ErrorEvent, Integration } from '@sentry/core';
import { isDetailedScriptError } from './filters';

export function eventFiltersReportingDetailedScriptErrors(): Integration {
  const withDefaults = eventFiltersIntegration();
  const withoutDefaults = eventFiltersIntegration({ disableErrorDefaults: true });
  return {
    name: withDefaults.name,
    setup(client) {
      withDefaults.setup?.(client);
      withoutDefaults.setup?.(client);
    },
    processEvent(event, hint, client) {
      // Error events have no type; transactions and others keep the default filter.
      const detailed = !event.type && isDetailedScriptError(event as ErrorEvent, hint);
      const filter = detailed ? withoutDefaults : withDefaults;
      return filter.processEvent ? filter.processEvent(event, hint, client) : event;
    },
  };
}
