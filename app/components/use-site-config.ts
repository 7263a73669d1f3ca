import { useRouter } from '@tanstack/react-router';
import type { SiteConfig } from '#app/site-config';

/**
 * The site config, read from the router's own context rather than a match's: the root's error
 * and not-found pages render too when the root's beforeLoad threw, and still have it.
 */
export function useSiteConfig(): SiteConfig | undefined {
  return useRouter().options.context.site;
}
