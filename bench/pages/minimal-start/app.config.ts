import { defineConfig } from '@tanstack/react-start/config';

// Start 1.120's defaults, the node-server preset as in the app: nothing else.
export default defineConfig({
  tsr: { appDirectory: 'app' },
  server: { preset: 'node-server' },
});
