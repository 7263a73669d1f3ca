// npm start: build when needed, then serve the production build (PORT and HOST honoured).

import { existsSync } from 'node:fs';
import { BUILD_ENTRY } from './build-state.mjs';
import { ensureBuild } from './ensure-build.mjs';

// A .env file, when present, fills in what the environment does not already set.
if (existsSync('.env')) process.loadEnvFile('.env');
ensureBuild();
process.env.NODE_ENV ??= 'production';
await import(new URL(`../${BUILD_ENTRY}`, import.meta.url).href);
