/**
 * What /sentry-example-page fails with on purpose: a server function and a root `beforeLoad`.
 * Both fail only when example routes are on.
 */
import { notFound } from '@tanstack/react-router';
import { createServerFn } from '@tanstack/react-start';
import * as v from 'valibot';
import { serverConfig } from './env.server';

export const FailingExampleInput = v.object({
  /** Who pressed the button; at most 40 characters (longer input shows validation failing). */
  label: v.pipe(v.string(), v.maxLength(40)),
});

export const callFailingExample = createServerFn({ method: 'POST' })
  .validator(FailingExampleInput)
  .handler(async ({ data }) => {
    if (!serverConfig().exampleRoutes) throw notFound();
    // The message stands for a secret (a connection string, a user's data): it must reach the
    // server log and Sentry, and never the browser.
    throw new Error(`Sentry example server function failed for "${data.label}"`);
  });

/** `?example-failure=root-before-load` makes the root route's beforeLoad throw. */
export const ROOT_BEFORE_LOAD_FAILURE = 'root-before-load';

/**
 * Lets the example (and the tests) exercise a failing root `beforeLoad`, the failure Start
 * 1.120 lost on the way to the browser. Costs nothing without the query flag, and does
 * nothing unless example routes are enabled.
 */
export function failRootBeforeLoadOnRequest(search: unknown, examplesOn: boolean): void {
  if (!examplesOn) return;
  const flag = (search as Record<string, unknown> | null)?.['example-failure'];
  if (flag !== ROOT_BEFORE_LOAD_FAILURE) return;
  // The marker stands for a secret in a message; tests check it never reaches the browser.
  throw new Error('Sentry example: root beforeLoad failed (root-before-load-secret-9c2e)');
}
