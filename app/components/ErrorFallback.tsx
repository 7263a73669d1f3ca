import { type ErrorComponentProps, Link } from '@tanstack/react-router';

/** The generic fallback: never shows the error's own message. */
export function ErrorFallback(_props: ErrorComponentProps) {
  return (
    <main className="page" role="alert">
      <h1>Application error</h1>
      <p>Something went wrong while showing this page.</p>
      <p>
        <Link to="/">Go to the home page</Link>
      </p>
    </main>
  );
}
