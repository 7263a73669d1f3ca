import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The 1-based line of `file` (project-relative) that holds `text`, read from the source: a test
 * that checks a stack follows edits to the file instead of pinning a number.
 */
export function lineOf(file: string, text: string): number {
  const lines = readFileSync(resolve(import.meta.dirname, '../..', file), 'utf8').split('\n');
  const index = lines.findIndex((line) => line.includes(text));
  if (index === -1) throw new Error(`${text} is not in ${file}`);
  return index + 1;
}

/** The example loader that always fails, and the line it throws on. */
export const EXAMPLE_LOADER_FILE = 'app/routes/sentry-example-page/ssr-error.tsx';
export const exampleLoaderLine = (): number => lineOf(EXAMPLE_LOADER_FILE, 'throw new Error(');
