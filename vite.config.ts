import { defineConfig } from 'vite';
import { importAliases } from './build/import-aliases';

// Not the app's config (that is app.config.ts). `vinxi dev` loads the server plugins
// (app/server/startup.server.ts and the shutdown hooks) through a bare vite server that reads
// only this file, so it needs the `#app/…` aliases too (decision 0900).
export default defineConfig({ resolve: { alias: importAliases } });
