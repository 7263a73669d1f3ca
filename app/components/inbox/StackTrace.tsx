import type { ExceptionView, FrameRun, FrameView } from '#app/server/inbox/stack-view';
import { countOf } from './format';

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
    <pre className="source-context">
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
