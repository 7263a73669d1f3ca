/**
 * The original name of the function a generated position is in, read from the map and the
 * chunk's text as rust-sourcemap's `SourceView::get_original_function_name` reads it (what
 * Sentry used before scope names). Shared by the server's frames
 * (app/server/failures/server-frames.server.ts) and the browser's (resolve-frame.ts), so both
 * name a function alike.
 * Pure: the map and the chunk's lines are given.
 */
import { decodedMappings, type TraceMap } from '@jridgewell/trace-mapping';

/** How far back the search goes, in mappings: rust-sourcemap's limit is 128 tokens. */
export const MAX_MAPPINGS_BACK = 256;
const IDENTIFIER = /^[A-Za-z_$][\w$]*/;

/** A position in the generated chunk: `line` 1-based, `column` 0-based, as the map counts. */
export interface GeneratedPosition {
  line: number;
  column: number;
}

/**
 * From the generated position, walk back through the mappings (at most MAX_MAPPINGS_BACK) to
 * the token that spells the function's generated name where it is declared, and take the
 * original name the map gives that token. Our bundles map `function y() {` at `y`, not at
 * `function`, so a declaration is recognised by the text around the token instead.
 *
 * - A minified name (`y`): the nearest `function y`, `y(`, `y =` or `y:` before the position.
 * - A name the runtime gave (Start calls a server function's handler as `Object.serverFn`):
 *   the nearest binding before the position (`l = createServerFn(…).handler(…)`), whose
 *   original name is the server function's (`callFailingExample`). A local binding in that
 *   function, written before the throw, would be taken instead: this is a heuristic, as
 *   rust-sourcemap's is.
 * - The engine's name when the map lists it (`loader`): undefined, that name stands.
 */
export function declaredFunctionName(
  map: TraceMap,
  lines: readonly string[],
  generated: GeneratedPosition,
  engineName: string,
): string | undefined {
  const own = coreName(engineName);
  if (!IDENTIFIER.test(own) || map.names.includes(own)) return undefined;
  const mappings = decodedMappings(map);
  const minified = own.length <= 2;
  let seen = 0;
  for (let row = generated.line - 1; row >= 0 && seen < MAX_MAPPINGS_BACK; row -= 1) {
    const segments = mappings[row] ?? [];
    const lineText = lines[row] ?? '';
    for (let i = segments.length - 1; i >= 0 && seen < MAX_MAPPINGS_BACK; i -= 1) {
      const segment = segments[i] as readonly number[];
      const at = segment[0] as number;
      if (row === generated.line - 1 && at > generated.column) continue;
      seen += 1;
      if (segment.length !== 5) continue;
      const token = IDENTIFIER.exec(lineText.slice(at))?.[0];
      if (!token) continue;
      const before = lineText.slice(0, at);
      const after = lineText.slice(at + token.length);
      const found = minified
        ? token === own && declares(before, after, true)
        : declares(before, after, false);
      if (found) return map.names[segment[4] as number];
    }
  }
  return undefined;
}

/** V8's "Object.serverFn" or "Module.y [as run]": the function's own name, "serverFn", "y". */
function coreName(name: string): string {
  const withoutAlias = name.replace(/ \[as [^\]]+\]$/, '');
  return withoutAlias.slice(withoutAlias.lastIndexOf('.') + 1);
}

/**
 * Whether the token between `before` and `after` is being declared: `function y`, `class y`,
 * `y = …` (not `==`, not `=>`), and with `asCallee` also `y(` and `y:` (a method, a property).
 */
function declares(before: string, after: string, asCallee: boolean): boolean {
  if (/(?:function\*?|class)\s+$/.test(before)) return true;
  if (/^\s*=(?![=>])/.test(after) && !/\.\s*$/.test(before)) return true;
  return asCallee && /^\s*[(:]/.test(after) && !/\.\s*$/.test(before);
}
