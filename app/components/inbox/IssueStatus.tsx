import type { IssueStatus as Status } from '#app/server/inbox/store/inbox-database.server';
import { setIssueStatus } from '#app/server/inbox.functions';

const LABELS: Record<Status, string> = {
  unresolved: 'Unresolved',
  resolved: 'Resolved',
  ignored: 'Ignored',
};

/** What each status can become, and the button that does it. */
const ACTIONS: Record<Status, Array<[to: Status, label: string]>> = {
  unresolved: [
    ['resolved', 'Resolve'],
    ['ignored', 'Ignore'],
  ],
  resolved: [
    ['unresolved', 'Reopen'],
    ['ignored', 'Ignore'],
  ],
  ignored: [
    ['unresolved', 'Reopen'],
    ['resolved', 'Resolve'],
  ],
};

/**
 * The issue's state as badges: "Regressed" (seen again after it was resolved) stands out; the
 * list shows only what is not the usual "Unresolved" (`quiet`).
 */
export function StatusBadges({
  status,
  regressed,
  quiet = false,
}: {
  status: Status;
  regressed: boolean;
  quiet?: boolean;
}) {
  return (
    <>
      {regressed ? <span className="badge-status regressed">Regressed</span> : null}
      {quiet && status === 'unresolved' ? null : (
        <span className={`badge-status status-${status}`}>{LABELS[status]}</span>
      )}
    </>
  );
}

/**
 * Resolve, ignore, reopen: one plain form POST each (they work before hydration and without
 * JavaScript), under the clear form's cross-site rules; the server answers with a 303 back to
 * this page (and this event).
 */
export function IssueWorkflow({
  issueId,
  status,
  regressed,
  eventId,
}: {
  issueId: number;
  status: Status;
  regressed: boolean;
  eventId?: string;
}) {
  return (
    <div className="issue-workflow">
      <span>
        Status: <StatusBadges status={status} regressed={regressed} />
      </span>
      {ACTIONS[status].map(([to, label]) => (
        <form key={to} method="post" action={setIssueStatus.url} aria-label={`${label} this issue`}>
          <input type="hidden" name="issueId" value={String(issueId)} />
          <input type="hidden" name="status" value={to} />
          {eventId ? <input type="hidden" name="event" value={eventId} /> : null}
          <button type="submit">{label}</button>
        </form>
      ))}
    </div>
  );
}
