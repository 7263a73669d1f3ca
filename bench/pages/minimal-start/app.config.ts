import { defineConfig } from '@tanstack/react-start/config';

// Start 1.120's defaults, the node-server preset as in the app: nothing else. The public folder
// is the app's own, so the favicon the shared head links to is there too.
export default defineConfig({
  tsr: { appDirectory: 'app' },
  server: { preset: 'node-server' },
  routers: { public: { dir: '../../../public' } },
});
