import { useEffect } from 'react';

/**
 * Renders nothing; calls `onHydrated` once React has committed the hydrated document's shell.
 * Rendered beside `<StartClient>`, outside every Suspense boundary: its effect runs with the first
 * commit (Start suspends the root until the route chunks are in). Content inside a Suspense
 * boundary (the route under the root) hydrates in a later pass: app/monitoring/start-browser-monitoring.ts.
 */
export function OnHydrated({ onHydrated }: { onHydrated: () => void }): null {
  useEffect(onHydrated, [onHydrated]);
  return null;
}
