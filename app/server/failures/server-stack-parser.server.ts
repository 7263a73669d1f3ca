/**
 * The server Sentry client's stack parser: @sentry/core's Node line parser. Its in_app rule
 * (`filenameIsInApp`) already fits the stacks Node maps for us (docs/decisions/0701-*.md): an
 * absolute path is in-app unless it contains `node_modules/`, so `…/app/routes/…` is and
 * `…/.output/server/node_modules/…` is not; Node internals and `<anonymous>` are not.
 * tests/unit/server/failures/server-stack-parser.test.ts holds that rule to the paths we produce.
 */
import { createStackParser } from '@sentry/core';
import { nodeStackLineParser } from '@sentry/core/server';

export const serverStackParser = createStackParser(nodeStackLineParser());
