/**
 * The one way server code keeps state for the life of the process (docs/decisions/0940 and
 * 1401): caches, pools, handles, counters, all of it. The build holds several copies of a server
 * module (vinxi bundles each router on its own, nitro's plugins and the server entry get a copy
 * of their own), so a module-level `let` or `new Map()` is one per copy, and which copies a
 * module has depends on who imports it. Kept on globalThis under a registered symbol (the way
 * Sentry's SDK keeps its own carrier), created by whichever copy asks first.
 * tests/unit/server/process-state.test.ts fails on module-level mutable state elsewhere.
 */
export function processShared<Key extends keyof ProcessState>(
  key: Key,
  create: () => ProcessState[Key],
): ProcessState[Key] {
  const symbol = Symbol.for(`start-monitoring:${key}`);
  const store = globalThis as unknown as Record<symbol, ProcessState[Key] | undefined>;
  let value = store[symbol];
  if (value === undefined) {
    value = create();
    store[symbol] = value;
  }
  return value;
}

/**
 * Every piece of per-process state, by key. Each module declares its own key and type beside
 * the code that uses it, by declaration merging:
 *
 *     declare module '#app/start-1.120/process-shared.server' {
 *       interface ProcessState { 'tunnel': Tunnel }
 *     }
 *
 * so the compiler rejects an undeclared key and a `create` of another type, and one grep for
 * `interface ProcessState` lists all of the process's state.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the modules that keep state
export interface ProcessState {}
