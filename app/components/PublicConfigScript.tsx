import {
  PUBLIC_CONFIG_ELEMENT_ID,
  type PublicConfig,
  serializeForScript,
} from '../monitoring/public-config';

/**
 * The browser's monitoring config as inert JSON in the document; app/client.tsx reads it
 * before hydrating. JSON in a script element is not HTML-escaped, so `<` is escaped instead.
 */
export function PublicConfigScript({ config }: { config: PublicConfig | undefined }) {
  if (!config) return null;
  return (
    <script
      id={PUBLIC_CONFIG_ELEMENT_ID}
      type="application/json"
      // biome-ignore lint/security/noDangerouslySetInnerHtml: serializeForScript escapes `<`.
      dangerouslySetInnerHTML={{ __html: serializeForScript(config) }}
    />
  );
}
