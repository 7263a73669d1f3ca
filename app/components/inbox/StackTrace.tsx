import type { ExceptionDetail, StackFrame } from '../../server/inbox/inbox-event';

/** Each exception with its frames, most recent call first; in-app frames are marked. */
export function StackTrace({ exceptions }: { exceptions: ExceptionDetail[] }) {
  if (exceptions.length === 0) return <p>This event has no stack trace.</p>;
  return (
    <>
      {exceptions.map((exception, index) => (
        // Exceptions have no id of their own; their order is their identity.
        // biome-ignore lint/suspicious/noArrayIndexKey: fixed order, never reordered
        <section key={index} className="exception" aria-label={`Exception ${exception.type}`}>
          <h3>
            {exception.type ? `${exception.type}: ` : ''}
            {exception.value}
          </h3>
          {exception.frames.length === 0 ? (
            <p className="muted">No frames.</p>
          ) : (
            <ol className="frames" aria-label="Stack frames">
              {exception.frames.map((frame, frameIndex) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: fixed order, never reordered
                <li key={frameIndex} className={frame.inApp ? 'frame in-app' : 'frame'}>
                  <code>{frame.function ?? '<anonymous>'}</code> at <code>{location(frame)}</code>
                  {frame.inApp ? <span className="badge"> in app</span> : null}
                </li>
              ))}
            </ol>
          )}
        </section>
      ))}
    </>
  );
}

function location(frame: StackFrame): string {
  const file = frame.filename ?? '<unknown file>';
  if (frame.lineno === undefined) return file;
  return frame.colno === undefined
    ? `${file}:${frame.lineno}`
    : `${file}:${frame.lineno}:${frame.colno}`;
}
