/**
 * A real minified chunk with a real hidden source map and a debug id, built the way the app's
 * client is (Vite, Rollup, esbuild minify, Rollup's `sourcemapDebugIds`), from a small route
 * file that imports a package from node_modules. Running the chunk in a V8 context named by
 * its URL gives the exact frames the browser SDK would send, with the engine's own 1-based
 * columns: an off-by-one in the resolver points at the wrong token and the tests see it.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import vm from 'node:vm';
import { defaultStackParser, exceptionFromError } from '@sentry/browser';
import { build, type Rollup } from 'vite';

export const ROUTE_FILE = 'app/routes/sentry-example-page/index.tsx';
export const CHUNK_URL = 'http://localhost:3000/_build/assets/index-Fx1a2b3c.js';

/** 1-based lines of ROUTE_SOURCE that the tests expect frames at. */
export const LINES = { throwInFailWith: 8, callInOnClick: 14, callInRun: 20 } as const;
export const ROUTE_SOURCE = `import { invokeHandler } from 'fake-lib';

interface ClickEvent {
  label: string;
}

function failWith(text: string): never {
  throw new Error(\`Sentry example: \${text}\`);
}

export const handlers = {
  onClick: (event: ClickEvent): string => {
    const text = \`clicked \${event.label}\`;
    if (text.length > 0) failWith(text);
    return text;
  },
};

export function run(): string {
  return invokeHandler(handlers.onClick, { label: 'button' });
}
`;

const LIBRARY_SOURCE = `export function invokeHandler(handler, value) {
  const result = handler(value);
  return result;
}
`;

export interface Fixture {
  /** The project the chunk was built from (sources, node_modules). */
  projectDir: string;
  code: string;
  map: Record<string, unknown> & { debugId: string };
  /** The map as the build writes it to disk. */
  mapText: string;
  /** The SDK's exception for the error the chunk throws: frames oldest first, as sent. */
  exception: ReturnType<typeof exceptionFromError>;
}

export async function buildFixture(): Promise<Fixture> {
  const projectDir = await mkdtemp(join(tmpdir(), 'source-map-fixture-'));
  await mkdir(join(projectDir, 'app/routes/sentry-example-page'), { recursive: true });
  await mkdir(join(projectDir, 'node_modules/fake-lib'), { recursive: true });
  await writeFile(join(projectDir, ROUTE_FILE), ROUTE_SOURCE);
  await writeFile(join(projectDir, 'node_modules/fake-lib/index.js'), LIBRARY_SOURCE);
  await writeFile(
    join(projectDir, 'node_modules/fake-lib/package.json'),
    '{"name":"fake-lib","version":"1.0.0","type":"module","main":"index.js"}',
  );
  const output = (await build({
    root: projectDir,
    configFile: false,
    logLevel: 'silent',
    build: {
      write: false,
      minify: 'esbuild',
      sourcemap: 'hidden',
      lib: {
        entry: join(projectDir, ROUTE_FILE),
        formats: ['iife'],
        name: 'Fixture',
        fileName: () => 'index-Fx1a2b3c.js',
      },
      rollupOptions: { output: { sourcemapDebugIds: true } },
    },
  })) as Rollup.RollupOutput[];
  const chunk = output[0]?.output[0];
  if (!chunk?.map) throw new Error('the fixture build gave no chunk with a map');
  const map = JSON.parse(chunk.map.toString()) as Fixture['map'];
  const context = vm.createContext({});
  vm.runInContext(chunk.code, context, { filename: CHUNK_URL });
  let thrown: unknown;
  try {
    (context.Fixture as { run: () => string }).run();
  } catch (error) {
    thrown = error;
  }
  // The error comes from the chunk's own realm: `instanceof Error` is false for it here.
  if (typeof (thrown as Error | undefined)?.stack !== 'string') {
    throw new Error('the fixture chunk did not throw');
  }
  const exception = exceptionFromError(defaultStackParser, thrown as Error);
  return { projectDir, code: chunk.code, map, mapText: JSON.stringify(map), exception };
}

/** A directory of maps as the build writes them, plus a stray file beside them. */
export async function writeMapDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'source-map-dir-'));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}
