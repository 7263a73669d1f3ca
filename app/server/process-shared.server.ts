/**
 * State that must be one per process although the build holds several copies of a module:
 * vinxi bundles each router on its own, and nitro's plugins get a copy of their own too, so
 * module-level `let` is one per copy. Kept on globalThis under a registered symbol (the way
 * Sentry's SDK keeps its own carrier), created by whichever copy asks first.
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
