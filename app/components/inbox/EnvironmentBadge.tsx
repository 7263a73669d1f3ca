/**
 * An environment's name, styled by kind so that production and development are told apart at a
 * glance: production solid, development dashed, any other outlined.
 */
export function EnvironmentBadge({ environment }: { environment: string }) {
  const kind =
    environment === 'production'
      ? 'production'
      : environment === 'development'
        ? 'development'
        : 'other';
  return (
    <span className={`env env-${kind}`}>{environment === '' ? 'no environment' : environment}</span>
  );
}
