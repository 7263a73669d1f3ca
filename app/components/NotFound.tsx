import { Link } from '@tanstack/react-router';

export function NotFound() {
  return (
    <main className="page">
      <h1>Page not found</h1>
      <p>There is no page at this address.</p>
      <p>
        <Link to="/">Go to the home page</Link>
      </p>
    </main>
  );
}
