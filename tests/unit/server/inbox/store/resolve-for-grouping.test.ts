import { beforeAll, describe, expect, it } from 'vitest';
import { createDirectoryMapStore } from '#app/server/inbox/source-maps/directory-map-store.server';
import {
  type GroupingMaps,
  MAX_FILES_RESOLVED,
  resolvedForGrouping,
} from '#app/server/inbox/store/resolve-for-grouping';
import {
  buildFixture,
  CHUNK_URL,
  type Fixture,
  ROUTE_FILE,
  writeMapDir,
} from '../source-maps/fixture-build';

let fixture: Fixture;
let maps: GroupingMaps;

beforeAll(async () => {
  fixture = await buildFixture();
  maps = {
    store: createDirectoryMapStore({
      root: await writeMapDir({ 'assets/index-Fx1a2b3c.js.map': fixture.mapText }),
    }),
    projectRoot: '/nowhere',
    serverOutputDir: '/nowhere/.output/server',
  };
});

/** The browser's event: the chunk's frames only, with the debug id naming their map. */
function browserEvent(extraFiles = 0): Record<string, unknown> {
  const frames = (fixture.exception.stacktrace?.frames ?? []).filter(
    (frame) => frame.filename === CHUNK_URL,
  );
  const extra = Array.from({ length: extraFiles }, (_, i) => ({
    filename: `http://localhost/_build/assets/other-${i}.js`,
    function: 'x',
    lineno: 1,
    colno: 1,
  }));
  return {
    platform: 'javascript',
    exception: {
      values: [{ ...fixture.exception, stacktrace: { frames: [...extra, ...frames] } }],
    },
    debug_meta: {
      images: [{ type: 'sourcemap', code_file: CHUNK_URL, debug_id: fixture.map.debugId }],
    },
  };
}

function framesOf(event: Record<string, unknown>): Array<Record<string, unknown>> {
  const values = (event.exception as { values: Array<{ stacktrace: { frames: [] } }> }).values;
  return values[0]?.stacktrace.frames ?? [];
}

describe('resolvedForGrouping', () => {
  it('gives a resolved frame its source file, line and context line, marked as mapped', async () => {
    const resolved = framesOf(await resolvedForGrouping(browserEvent(), maps));
    const ours = resolved.find((frame) => frame.filename === ROUTE_FILE);
    expect(ours).toMatchObject({ in_app: true, data: { sourcemap: 'build' } });
    expect(typeof ours?.context_line).toBe('string');
    expect(typeof ours?.lineno).toBe('number');
  });

  it('leaves the event as it came without maps, and when it names more files than a stack does', async () => {
    const plain = browserEvent();
    expect(await resolvedForGrouping(plain, undefined)).toBe(plain);
    const crowded = browserEvent(MAX_FILES_RESOLVED);
    expect(await resolvedForGrouping(crowded, maps)).toBe(crowded);
  });
});
