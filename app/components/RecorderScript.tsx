import recorderScript from '#app/monitoring/recorder/recorder-script.ts?inline-script';

/**
 * The recorder (app/monitoring/recorder/recorder.ts), inline, first in the document head, so that
 * it runs before any module and catches what fails from there on. Its nonce comes as every
 * script's does (app/start-1.120/script-nonce.server.ts). The text is the server's only:
 * the browser has run it by the time React hydrates, and the bundle would only carry it twice.
 */
export function RecorderScript() {
  return (
    <script
      id="monitoring-recorder"
      // biome-ignore lint/security/noDangerouslySetInnerHtml: our own code, bundled at build time.
      dangerouslySetInnerHTML={{ __html: import.meta.env.SSR ? recorderScript : '' }}
      suppressHydrationWarning
    />
  );
}
