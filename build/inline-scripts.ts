/**
 * `import code from '<module>.ts?inline-script'`: a script that calls the module's default
 * export, bundled with what it imports and minified into one classic script, as a string the
 * server renders inline into the page (the recorder in the document head,
 * app/monitoring/recorder/recorder.ts). The module itself runs nothing when imported, so the
 * app's bundle and the tests import it like any other. Code written and checked as TypeScript
 * like the rest, never a hand-kept string; esbuild, which vite brings, does the work.
 */
import { dirname, resolve } from 'node:path';
import { build } from 'esbuild';
import type { Plugin } from 'vite';

const SUFFIX = '?inline-script';

/** The script as it may sit inside `<script>…</script>`: nothing in it can close the element. */
export function scriptElementText(code: string): string {
  return code.trim().replace(/<\/(script)/gi, '<\\/$1');
}

export function inlineScripts(): Plugin {
  return {
    name: 'inline-scripts',
    async load(id) {
      if (!id.endsWith(SUFFIX)) return undefined;
      const entry = id.slice(0, -SUFFIX.length);
      const result = await build({
        stdin: {
          contents: `import run from ${JSON.stringify(entry)};\nrun();`,
          resolveDir: dirname(entry),
          loader: 'ts',
        },
        bundle: true,
        minify: true,
        format: 'iife',
        platform: 'browser',
        // The language level of vite's default browser targets (which the app's chunks assume).
        target: 'es2020',
        legalComments: 'none',
        write: false,
        metafile: true,
      });
      // `vinxi dev` rebuilds the string when one of the script's modules changes. Absolute: vite
      // resolves a watched file like an import, and esbuild's paths are relative to the cwd.
      for (const input of Object.keys(result.metafile.inputs)) {
        if (input !== '<stdin>') this.addWatchFile(resolve(input));
      }
      const code = result.outputFiles[0]?.text ?? '';
      return `export default ${JSON.stringify(scriptElementText(code))};`;
    },
  };
}
