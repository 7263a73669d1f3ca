/**
 * An issue's events as /errors shows them on the issue's page: one event in the page's order (the
 * facts: time, release, environment, handled, trace id; then the stack, the breadcrumbs and its
 * tags as Sentry derives them), and the issue's stored events, newest first, a page at a time.
 */
import { Link } from '@tanstack/react-router';
import type { ExceptionView, FrameRun, FrameView } from '#app/server/inbox/event-stack.server';
import type { ShownEvent } from '#app/server/inbox/inbox.functions';
import type {
  BreadcrumbDetail,
  EventSummary,
  RequestDetail,
  UnshownEvent,
} from '#app/server/inbox/inbox-event';
import type { EventPage } from '#app/server/inbox/store/inbox-reads.server';
import { countOf, formatUtc, isoOf, timeAgo } from './format';

/**
 * One stored event of an issue, as Sentry shows it: its facts, its stack through the build's
 * source maps, breadcrumbs and tags, with links to the issue's older and newer events.
 */
export function EventDetail({
  issueId,
  event,
}: {
  issueId: number;
  event: ShownEvent | UnshownEvent;
}) {
  if ('unshown' in event) {
    return (
      <section className="event" aria-labelledby="event-heading">
        <h2 id="event-heading">This event could not be shown</h2>
        <p>
          The inbox holds an event with the id <code className="event-id">{event.eventId}</code>,
          but it could not be read as one. The server log says why.
        </p>
      </section>
    );
  }
  return (
    <section className="event" aria-labelledby="event-heading">
      <div className="event-top">
        <h2 id="event-heading">{event.latest ? 'Latest event' : 'Event'}</h2>
        <EventNav issueId={issueId} event={event} />
      </div>
      <p className="event-headline">{headline(event)}</p>
      <dl className="facts">
        <dt>Event id</dt>
        <dd>
          <code className="event-id">{event.eventId}</code>
        </dd>
        <dt>Time</dt>
        <dd>
          <time dateTime={isoOf(event.timestamp ?? event.receivedAt)}>
            {formatUtc(event.timestamp ?? event.receivedAt)}
          </time>
        </dd>
        <EventFacts event={event} withRelease />
        {event.handled === undefined ? null : (
          <>
            <dt>Handled</dt>
            <dd className={event.handled ? undefined : 'unhandled'}>
              {event.handled ? 'yes' : 'no (unhandled)'}
            </dd>
          </>
        )}
        {event.traceId ? (
          <>
            <dt>Trace id</dt>
            <dd>
              <code className="event-id">{event.traceId}</code>
            </dd>
          </>
        ) : null}
      </dl>
      {event.request ? <RequestSection request={event.request} /> : null}
      <section aria-labelledby="stack-heading">
        <h3 id="stack-heading">Stack trace</h3>
        <StackTrace exceptions={event.stack} />
      </section>
      <section aria-labelledby="breadcrumbs-heading">
        <h3 id="breadcrumbs-heading">Breadcrumbs</h3>
        <Breadcrumbs breadcrumbs={event.breadcrumbs} />
      </section>
      <section aria-labelledby="event-tags-heading">
        <h3 id="event-tags-heading">Tags of this event</h3>
        {event.tags.length === 0 ? (
          <p>No tags.</p>
        ) : (
          <dl className="facts event-tags" aria-label="Tags of this event">
            {event.tags.map(([key, value], index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a key may repeat in a list of pairs
              <div key={index} className="tag">
                <dt>{key}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
        )}
      </section>
    </section>
  );
}

/**
 * The request the event failed in, as Sentry's Request panel shows it: method and URL, the
 * route, for a server function its name and calling page, then the headers the event kept.
 */
export function RequestSection({ request }: { request: RequestDetail }) {
  const target = request.url ? request.url + (request.query ? `?${request.query}` : '') : '';
  return (
    <section aria-labelledby="request-heading">
      <h3 id="request-heading">Request</h3>
      <p className="inbox-url">
        {request.method ? <strong>{request.method}</strong> : null} {target || 'no URL'}
      </p>
      <dl className="facts request" aria-label="Request details">
        {request.route ? (
          <>
            <dt>Route</dt>
            <dd>
              <code>{request.route}</code>
            </dd>
          </>
        ) : null}
        {request.serverFunction ? (
          <>
            <dt>Server function</dt>
            <dd>
              <code>{request.serverFunction.name}</code>
            </dd>
            <dt>Called from</dt>
            <dd className="inbox-url">{request.serverFunction.page ?? 'not known'}</dd>
          </>
        ) : null}
        {request.headers.map(([name, value], index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a header may repeat in a list of pairs
          <div key={index} className="request-header">
            <dt>{name}</dt>
            <dd className="inbox-url">{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** Older and newer among the issue's stored events, and back to the latest. */
function EventNav({ issueId, event }: { issueId: number; event: ShownEvent }) {
  const params = { issueId: String(issueId) };
  return (
    <nav className="event-nav" aria-label="Events of this issue">
      {event.olderId ? (
        <Link to="/errors/issues/$issueId" params={params} search={{ event: event.olderId }}>
          ← Older
        </Link>
      ) : (
        <span className="muted">← Older</span>
      )}
      {event.newerId ? (
        <Link to="/errors/issues/$issueId" params={params} search={{ event: event.newerId }}>
          Newer →
        </Link>
      ) : (
        <span className="muted">Newer →</span>
      )}
      {event.latest ? null : (
        <Link to="/errors/issues/$issueId" params={params} search={{}}>
          Latest
        </Link>
      )}
    </nav>
  );
}

/** "TypeError: x is not a function", or the message alone for a message event. */
export function headline(event: { type: string; message: string }): string {
  if (event.type && event.message) return `${event.type}: ${event.message}`;
  return event.type || event.message || '(no message)';
}

/**
 * The facts the list and the detail view both show about an event, as `<dt>`/`<dd>` pairs for
 * the caller's `<dl>`. The digest only appears for server-side failures, which carry one.
 */
export function EventFacts({
  event,
  withRelease = false,
}: {
  event: EventSummary;
  withRelease?: boolean;
}) {
  return (
    <>
      <dt>Level</dt>
      <dd className={`level level-${event.level}`}>{event.level}</dd>
      <dt>Page</dt>
      <dd className="inbox-url">{event.url ?? 'no page URL'}</dd>
      <dt>Environment</dt>
      <dd>{event.environment ?? 'not set'}</dd>
      {withRelease ? (
        <>
          <dt>Release</dt>
          <dd>{event.release ?? 'not set'}</dd>
        </>
      ) : null}
      {event.digest ? (
        <>
          <dt>Digest</dt>
          <dd>
            <code>{event.digest}</code>
          </dd>
        </>
      ) : null}
    </>
  );
}

/** Longer text (or more than one line) is folded to its first line, to be opened. */
const ONE_LINE = 120;

/**
 * What happened before the event, oldest first, as Sentry shows it. A long message or data (a
 * console breadcrumb holding a minified stack) is folded to one line with a way to open it.
 * Everything here is event data, rendered as text.
 */
export function Breadcrumbs({ breadcrumbs }: { breadcrumbs: BreadcrumbDetail[] }) {
  if (breadcrumbs.length === 0) return <p>No breadcrumbs.</p>;
  return (
    <ol className="crumbs" aria-label="Breadcrumbs">
      {breadcrumbs.map((crumb, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: fixed order, never reordered
        <li key={index} className="crumb">
          <span className="crumb-head">
            <span className="crumb-category">{crumb.category ?? crumb.type ?? 'default'}</span>
            {crumb.level ? (
              <span className={`crumb-level level-${crumb.level}`}>{crumb.level}</span>
            ) : null}
            {crumb.timestamp ? (
              <time dateTime={isoOf(crumb.timestamp)}>{formatUtc(crumb.timestamp)}</time>
            ) : null}
          </span>
          {crumb.message ? <CrumbText text={crumb.message} kind="message" /> : null}
          {crumb.data ? <CrumbText text={crumb.data} kind="data" /> : null}
        </li>
      ))}
    </ol>
  );
}

function CrumbText({ text, kind }: { text: string; kind: 'message' | 'data' }) {
  const firstLine = text.split('\n', 1)[0] ?? '';
  if (text.length <= ONE_LINE && firstLine === text) {
    return kind === 'data' ? (
      <code className="crumb-data">{text}</code>
    ) : (
      <span className="crumb-message">{text}</span>
    );
  }
  return (
    <details className={`crumb-long crumb-${kind}`}>
      <summary>
        <span className="crumb-line">
          {firstLine.length > ONE_LINE ? `${firstLine.slice(0, ONE_LINE)}…` : `${firstLine} …`}
        </span>
      </summary>
      <pre>{text}</pre>
    </details>
  );
}

/**
 * Each exception with its frames, most recent call first: our own frames open, with the source
 * around the line (from the build's maps, or as the SDK sent it); runs of library frames folded
 * under "N library frames". A stack taken from a thread says whose. Everything here is event
 * data or source text and is rendered as text.
 */
export function StackTrace({ exceptions }: { exceptions: ExceptionView[] }) {
  if (exceptions.length === 0) return <p>This event has no stack trace.</p>;
  return (
    <>
      {exceptions.map((exception, index) => (
        // Exceptions have no id of their own; their order is their identity.
        // biome-ignore lint/suspicious/noArrayIndexKey: fixed order, never reordered
        <section key={index} className="exception" aria-label={`Exception ${exception.type}`}>
          <h4>
            {exception.type ? `${exception.type}: ` : ''}
            {exception.value}
          </h4>
          {exception.thread ? (
            <p className="muted">{`The stack of thread ${exception.thread}`}</p>
          ) : null}
          {exception.runs.length === 0 ? (
            <p className="muted">No frames.</p>
          ) : (
            <ol className="frames" aria-label="Stack frames">
              {exception.runs.map((run, runIndex) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: fixed order, never reordered
                <Run key={runIndex} run={run} />
              ))}
            </ol>
          )}
        </section>
      ))}
    </>
  );
}

function Run({ run }: { run: FrameRun }) {
  if (run.kind === 'frame') return <Frame frame={run.frame} />;
  return (
    <li className="library-frames">
      <details>
        <summary>{countOf(run.frames.length, 'library frame')}</summary>
        <ol className="frames" aria-label="Library frames">
          {run.frames.map((frame, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: fixed order, never reordered
            <Frame key={index} frame={frame} library />
          ))}
        </ol>
      </details>
    </li>
  );
}

function Frame({ frame, library = false }: { frame: FrameView; library?: boolean }) {
  return (
    <li
      className={['frame', library && 'library', frame.inApp && 'in-app'].filter(Boolean).join(' ')}
    >
      <code>{frame.functionName ?? '<anonymous>'}</code> at <code>{location(frame)}</code>
      {frame.inApp ? <span className="badge"> in app</span> : null}
      {frame.reason ? <span className="frame-reason">{` (${frame.reason})`}</span> : null}
      {frame.context && frame.line !== undefined ? (
        <SourceLines line={frame.line} context={frame.context} />
      ) : null}
    </li>
  );
}

/** The lines before, the line (marked), the lines after, each with its number. */
function SourceLines({
  line,
  context,
}: {
  line: number;
  context: NonNullable<FrameView['context']>;
}) {
  const first = line - context.pre.length;
  const lines = [...context.pre, context.line, ...context.post];
  return (
    // A long line scrolls sideways inside the block: focusable, so a keyboard can scroll it too.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: axe's scrollable-region-focusable (WCAG 2.1.1) asks for it
    <pre className="source-context" tabIndex={0}>
      <code>
        {lines.map((text, index) => {
          const number = first + index;
          const row = (
            <>
              <span className="line-number">{number}</span>
              {text}
              {'\n'}
            </>
          );
          return number === line ? (
            <mark key={number} className="source-line current">
              {row}
            </mark>
          ) : (
            <span key={number} className="source-line">
              {row}
            </span>
          );
        })}
      </code>
    </pre>
  );
}

function location(frame: FrameView): string {
  const file = frame.file ?? '<unknown file>';
  if (frame.line === undefined) return file;
  return frame.column === undefined
    ? `${file}:${frame.line}`
    : `${file}:${frame.line}:${frame.column}`;
}

/**
 * An issue's stored events, newest first, a page at a time: when each came ("3 minutes ago", the
 * exact time in its `<time>`), linking to the event on the issue's page, and a link to the next
 * (older) page. The event on view is marked.
 */
export function IssueEvents({
  issueId,
  page,
  now,
  before,
  shownEventId,
}: {
  issueId: number;
  page: EventPage;
  /** The server's time the page was read at: "3 minutes ago" counts from it. */
  now: number;
  /** Where this page starts (`?before=`), unset on the first. */
  before?: string;
  /** The event the page shows, marked in the list. */
  shownEventId?: string;
}) {
  const params = { issueId: String(issueId) };
  // The list stays where it is when an event of it is opened, and the event when it pages.
  const staying = before === undefined ? {} : { before };
  const shown = shownEventId === undefined ? {} : { event: shownEventId };
  return (
    <section className="issue-event-list" aria-labelledby="events-list-heading">
      <h2 id="events-list-heading">{before === undefined ? 'Events' : 'Older events'}</h2>
      {page.events.length === 0 ? (
        <p>No stored events.</p>
      ) : (
        <ol className="event-list" aria-label="Events of this issue, newest first">
          {page.events.map((event) => (
            <li key={event.eventId}>
              {/* The router marks the link to the current URL the same way (aria-current="page"):
                  this also marks the latest event when no `?event=` names it. */}
              <Link
                to="/errors/issues/$issueId"
                params={params}
                search={{ ...staying, event: event.eventId }}
                aria-current={event.eventId === shownEventId ? 'page' : undefined}
              >
                <time dateTime={isoOf(event.receivedAt)} title={formatUtc(event.receivedAt)}>
                  {timeAgo(event.receivedAt, now)}
                </time>{' '}
                <code>{event.eventId.slice(0, 8)}</code>
              </Link>
              <span className="event-list-facts">
                {[event.environment, event.release].filter(Boolean).join(' · ')}
              </span>
            </li>
          ))}
        </ol>
      )}
      <nav className="event-list-nav" aria-label="Pages of events">
        {before === undefined ? null : (
          <Link to="/errors/issues/$issueId" params={params} search={shown}>
            Newest events
          </Link>
        )}
        {page.nextBefore ? (
          <Link
            to="/errors/issues/$issueId"
            params={params}
            search={{ ...shown, before: page.nextBefore }}
          >
            Older events →
          </Link>
        ) : null}
      </nav>
    </section>
  );
}
