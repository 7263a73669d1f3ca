/**
 * The small public slice of the server's configuration that the browser needs to report
 * errors. It is rendered into the document at request time (never baked in at build time),
 * so a changed SENTRY_DSN takes effect on restart.
 */
import * as v from 'valibot';

export const PublicConfigSchema = v.object({
  /** The DSN the browser SDK reports to (SENTRY_DSN, or the local inbox DSN). */
  dsn: v.string(),
  /** The same-origin tunnel URL for that DSN. */
  tunnel: v.string(),
  environment: v.string(),
  release: v.string(),
  tracesSampleRate: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
});

export type PublicConfig = v.InferOutput<typeof PublicConfigSchema>;

/** The id of the `<script type="application/json">` element that carries the config. */
export const PUBLIC_CONFIG_ELEMENT_ID = 'public-config';

/**
 * JSON safe to put inside a `<script>` element: `<` is escaped so that no value can close
 * the element (`</script>`) or open a comment; JSON.parse reads `\u003c` back as `<`.
 */
export function serializeForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** Reads the config text of the document; undefined when it is missing or malformed. */
export function parsePublicConfig(text: string | null | undefined): PublicConfig | undefined {
  if (!text) return undefined;
  try {
    const result = v.safeParse(PublicConfigSchema, JSON.parse(text));
    return result.success ? result.output : undefined;
  } catch {
    return undefined;
  }
}
