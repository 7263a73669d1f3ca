/** The tunnel answers at exactly this path; the router's prefix match also sends /monitoringX and /monitoring/x. */
export const TUNNEL_PATH = '/monitoring';

/** Whether a raw request URL (path and query, as received) is the tunnel. */
export function isTunnelPath(rawUrl: string): boolean {
  if (!rawUrl.startsWith(TUNNEL_PATH)) return false;
  const next = rawUrl.charCodeAt(TUNNEL_PATH.length);
  // End of string, '?' or '#'.
  return Number.isNaN(next) || next === 0x3f || next === 0x23;
}
