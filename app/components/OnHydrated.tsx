import { useEffect } from 'react';

/**
 * Renders nothing; calls `onHydrated` once React has committed the hydrated document. Rendered
 * beside `<StartClient>`, outside every Suspense boundary, so its effect runs only when the
 * whole page has hydrated (Start suspends the root until the route chunks are in).
 */
export function OnHydrated({ onHydrated }: { onHydrated: () => void }): null {
  useEffect(onHydrated, [onHydrated]);
  return null;
}
