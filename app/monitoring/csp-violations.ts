/**
 * Content-Security-Policy violations in the page, reported through the SDK (so through the
 * tunnel, the only origin the policy lets the page talk to). A few per page: one injected
 * script blocked on every frame must not flood the queue of 64.
 */
export const MAX_CSP_REPORTS_PER_PAGE = 3;

export interface CspViolation {
  effectiveDirective: string;
  blockedURI: string;
  sourceFile: string;
  lineNumber: number;
  disposition: string;
}

/** What is sent for one violation: a short message, and the details as tags and extra. */
export function describeViolation(violation: CspViolation): {
  message: string;
  tags: Record<string, string>;
  extra: Record<string, string | number>;
} {
  // "inline", "eval" or a URL: the origin is enough to group by, the path goes in extra.
  const blocked = blockedOrigin(violation.blockedURI);
  return {
    message: `Content-Security-Policy: ${violation.effectiveDirective} blocked ${blocked}`,
    tags: { csp_directive: violation.effectiveDirective, csp_disposition: violation.disposition },
    extra: {
      blockedURI: violation.blockedURI.slice(0, 500),
      sourceFile: violation.sourceFile.slice(0, 500),
      lineNumber: violation.lineNumber,
    },
  };
}

function blockedOrigin(uri: string): string {
  if (!uri.includes(':')) return uri || 'inline';
  try {
    const url = new URL(uri);
    return url.origin === 'null' ? `${url.protocol}` : url.origin;
  } catch {
    return uri.slice(0, 100);
  }
}

/** Starts listening; `report` is called for at most MAX_CSP_REPORTS_PER_PAGE violations. */
export function reportCspViolations(
  target: Pick<Document, 'addEventListener' | 'removeEventListener'>,
  report: (description: ReturnType<typeof describeViolation>) => void,
): () => void {
  let reported = 0;
  const listener = (event: Event) => {
    if (reported >= MAX_CSP_REPORTS_PER_PAGE) return;
    reported++;
    report(describeViolation(event as SecurityPolicyViolationEvent));
  };
  target.addEventListener('securitypolicyviolation', listener);
  return () => target.removeEventListener('securitypolicyviolation', listener);
}
