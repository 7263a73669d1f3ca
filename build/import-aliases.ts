import { resolve } from 'node:path';

/**
 * `#app/…` names a module under `app/`, `#tests/…` one under `tests/`, from anywhere: imports
 * climb no `../../../`. Siblings stay `./`. tsconfig.json's `paths` says the same for the type
 * checker and for Playwright; vite (every router, and vite.config.ts for `vinxi dev`), nitro and
 * vitest read this object. Not package.json `imports`: nitro's resolver does not add the `.ts`
 * extension to those (decision 0900).
 *
 * The one exception: what app.config.ts loads (build/, and the few app modules build/ imports)
 * uses relative paths, because the config loader knows no alias.
 */
// From the working directory, as app.config.ts's other paths: the config loader bundles this
// file beside app.config.ts, so its own location is not where it was written.
export const importAliases = {
  '#app': resolve('app'),
  '#tests': resolve('tests'),
};
