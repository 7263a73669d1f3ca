/**
 * A store that cannot be used says so, and why: it never looks like an empty inbox (where "No
 * errors captured yet" would be a lie: reports are being lost).
 */
export function StorageProblem({ problem, inboxDir }: { problem: string; inboxDir: string }) {
  return (
    <div role="alert" className="inbox-problem">
      <h2>The inbox’s storage is failing</h2>
      <p>
        Error reports cannot be stored or shown: <span className="problem-reason">{problem}</span>
      </p>
      <p>
        Fix that for <code>{inboxDir}</code> (<code>MONITORING_INBOX_DIR</code>), then restart the
        server. <code>/health</code> reports <code>degraded</code> until then.
      </p>
    </div>
  );
}
