// npm start: build when needed, then serve the production build (PORT and HOST honoured).

import { BUILD_ENTRY } from './build-state.mjs';
import { ensureBuild } from './ensure-build.mjs';

ensureBuild();
process.env.NODE_ENV ??= 'production';
await import(new URL(`../${BUILD_ENTRY}`, import.meta.url).href);
