import { SITE_CONFIG_ELEMENT_ID, type SiteConfig, serializeForScript } from '#app/site-config';

/**
 * The site config as inert JSON in the document; app/client.tsx reads it before creating the
 * browser's router. JSON in a script element is not HTML-escaped, so `<` is escaped instead.
 */
export function SiteConfigScript({ config }: { config: SiteConfig | undefined }) {
  if (!config) return null;
  return (
    <script
      id={SITE_CONFIG_ELEMENT_ID}
      type="application/json"
      // biome-ignore lint/security/noDangerouslySetInnerHtml: serializeForScript escapes `<`.
      dangerouslySetInnerHTML={{ __html: serializeForScript(config) }}
    />
  );
}
