/**
 * The one way server code keeps state for the life of the process (docs/decisions/0940):
 * caches, pools, handles, counters, all of it. The build holds several copies of a server
 * module (vinxi bundles each router on its own, nitro's plugins and the server entry get a copy
 * of their own), so a module-level `let` or `new Map()` is one per copy, and which copies a
 * module has depends on who imports it. Kept on globalThis under a registered symbol (the way
 * Sentry's SDK keeps its own carrier), created by whichever copy asks first.
 * tests/unit/server/process-state.test.ts fails on module-level mutable state elsewhere.
 */
export function processShared<T extends object>(name: string, create: () => T): T {
  const key = Symbol.for(`start-monitoring:${name}`);
  const store = globalThis as unknown as Record<symbol, T | undefined>;
  let value = store[key];
  if (!value) {
    value = create();
    store[key] = value;
  }
  return value;
}
