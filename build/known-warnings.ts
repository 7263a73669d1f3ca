/**
 * Build warnings about the framework's own code, which no user of this app can act on: each is
 * matched exactly (plugin or code, and the module it names), so any other warning still shows.
 * A build that prints only what needs attention is one whose warnings get read. `BuildWarning`
 * holds the fields of a rollup warning read here.
 */
export interface BuildWarning {
  code?: string;
  plugin?: string;
  message: string;
  exporter?: string;
  id?: string;
  ids?: readonly string[];
  binding?: string;
}

interface KnownWarning {
  /** Why it is harmless, for whoever wonders where a warning went. */
  why: string;
  matches(warning: BuildWarning): boolean;
}

export const KNOWN_WARNINGS: readonly KnownWarning[] = [
  {
    why: "Start 1.120's createServerFn imports node:fs and node:path for the server only; the browser build empties them and never calls that code",
    matches: (w) =>
      w.plugin === 'vite:resolve' &&
      /^(\[plugin vite:resolve\] )?Module "node:(fs|path)" has been externalized for browser compatibility, imported by "[^"]*\/@tanstack\/start-client-core\/dist\/esm\/createServerFn\.js"/.test(
        w.message,
      ),
  },
  {
    why: "vinxi's client handler re-exports the entry's default export; a browser entry has none, and nothing reads it",
    matches: (w) =>
      w.code === 'MISSING_EXPORT' &&
      w.binding === 'default' &&
      /(^|\/)app\/client\.tsx$/.test(w.exporter ?? '') &&
      (w.id ?? '').includes('virtual:$vinxi/handler/client'),
  },
  {
    why: '@tanstack/react-start-client re-exports helpers of start-client-core that the server build does not use',
    matches: (w) =>
      w.code === 'UNUSED_EXTERNAL_IMPORT' &&
      w.exporter === '@tanstack/start-client-core' &&
      (w.ids ?? []).length > 0 &&
      (w.ids ?? []).every((id) => id.includes('/@tanstack/react-start-client/')),
  },
];

export function isKnownWarning(warning: BuildWarning): boolean {
  return KNOWN_WARNINGS.some((known) => known.matches(warning));
}

/** `build.rollupOptions.onwarn`: every warning but the known ones goes on to vite's handler. */
export function quietKnownWarnings<W extends BuildWarning>(
  warning: W,
  warn: (warning: W) => void,
): void {
  if (!isKnownWarning(warning)) warn(warning);
}
