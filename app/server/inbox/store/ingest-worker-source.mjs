// The ingest thread from its TypeScript source, for `vinxi dev` and the tests: a worker does
// not inherit the loader that runs the rest of the server's TypeScript, so it registers tsx
// itself. The built server starts the bundled worker (BUILT_WORKER_FILE) instead.
import { tsImport } from 'tsx/esm/api';

await tsImport('./ingest-worker.ts', import.meta.url);
