import type { ReleaseHealth as Health } from '#app/server/inbox/store/inbox-database.server';
import { countOf } from './format';
import { EnvironmentBadge } from './IssueList';

/**
 * Release health from the session updates the SDK sends: per release and environment, the
 * sessions, those that crashed or saw an error, and the crash-free rate, as Sentry shows them.
 */
export function ReleaseHealth({ health }: { health: Health[] }) {
  if (health.length === 0) return <p>No sessions received yet.</p>;
  return (
    <div className="table-scroll">
      <table className="inbox-table release-health">
        <thead>
          <tr>
            <th scope="col">Release</th>
            <th scope="col">Environment</th>
            <th scope="col">Sessions</th>
            <th scope="col">Crashed</th>
            <th scope="col">Errored</th>
            <th scope="col">Crash-free</th>
          </tr>
        </thead>
        <tbody>
          {health.map((row) => (
            <tr key={`${row.release}\n${row.environment}`}>
              <td>{row.release || 'not set'}</td>
              <td>
                <EnvironmentBadge environment={row.environment} />
              </td>
              <td>{row.sessions}</td>
              <td>
                {row.abnormal > 0 ? `${row.crashed} + ${row.abnormal} abnormal` : row.crashed}
              </td>
              <td>{row.errored}</td>
              <td>{crashFree(row.crashFreeRate)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** "99.5%", never rounded up to a perfect 100% that it is not; "no sessions" without any. */
export function crashFree(rate: number | undefined): string {
  if (rate === undefined) return 'no sessions';
  return `${Math.floor(rate * 10_000) / 100}%`;
}

/** "Also received: 15 sessions, 2 spans, 1 client report." — what is counted, not listed. */
export function receivedLine(itemCounts: Record<string, number>): string | undefined {
  const others = Object.entries(itemCounts)
    .filter(([type, count]) => type !== 'event' && count > 0)
    .map(([type, count]) => countOf(count, itemName(type)));
  return others.length > 0 ? `Also received: ${others.join(', ')}.` : undefined;
}

const ITEM_NAMES = new Map([
  ['sessions', 'session aggregate'],
  ['client_report', 'client report'],
  ['other', 'other item'],
]);

function itemName(type: string): string {
  return ITEM_NAMES.get(type) ?? type.replaceAll('_', ' ');
}
