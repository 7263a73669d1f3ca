/**
 * What every page needs to know about this server, fixed until it restarts: the browser's
 * monitoring config and which optional pages exist. The server computes it once
 * (app/server/site-config.server.ts) and gives it to each request's router as context; the
 * root renders it into the document as inert JSON, and app/client.tsx reads it back before
 * creating the browser's router, so both sides render with the same context.
 */
import * as v from 'valibot';
import { PublicConfigSchema } from './monitoring/public-config';

export const SiteConfigSchema = v.object({
  monitoring: PublicConfigSchema,
  /** The navigation links only to pages that exist. */
  links: v.object({
    /** The error inbox: served in local inbox mode. */
    errorInbox: v.boolean(),
    /** /sentry-example-page: served when example routes are on. */
    examplePage: v.boolean(),
  }),
});

export type SiteConfig = v.InferOutput<typeof SiteConfigSchema>;

/** The router context of every request; `site` is missing only from a page that lacks it. */
export interface RouterContext {
  site: SiteConfig | undefined;
}

/** The id of the `<script type="application/json">` element that carries the config. */
export const SITE_CONFIG_ELEMENT_ID = 'site-config';

/**
 * JSON safe to put inside a `<script>` element: `<` is escaped so that no value can close
 * the element (`</script>`) or open a comment; JSON.parse reads `\u003c` back as `<`.
 */
export function serializeForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** Reads the config text of the document; undefined when it is missing or malformed. */
export function parseSiteConfig(text: string | null | undefined): SiteConfig | undefined {
  if (!text) return undefined;
  try {
    const result = v.safeParse(SiteConfigSchema, JSON.parse(text));
    return result.success ? result.output : undefined;
  } catch {
    return undefined;
  }
}
