/**
 * Which compressed encodings a request accepts, read from its `Accept-Encoding` as RFC 9110
 * §12.5.3 says: `q=0` refuses a coding, `*` stands for every coding not named, names are
 * case-insensitive, `x-gzip` is `gzip`. Pure, so the rules are tested without a server.
 * Decision: docs/decisions/0820-precompressed-assets.md.
 */

export type ContentCoding = 'br' | 'gzip';

/** Ours, in the order we prefer them when the client weighs them the same: brotli is smaller. */
const OURS: readonly ContentCoding[] = ['br', 'gzip'];

/** A qvalue as the grammar allows it: 0 to 1 with at most three decimals. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** The codings of ours that `header` accepts, the client's favourite first. */
export function acceptedCodings(header: string | undefined): ContentCoding[] {
  if (!header) return [];
  const weights = new Map<string, number>();
  for (const member of header.split(',')) {
    const [token = '', ...parameters] = member.split(';');
    const name = canonicalName(token.trim().toLowerCase());
    if (name === '') continue;
    const weight = weightOf(parameters);
    // A coding named twice counts at its best: the header is a list, not a program.
    weights.set(name, Math.max(weight, weights.get(name) ?? 0));
  }
  const weightOfCoding = (coding: ContentCoding) => weights.get(coding) ?? weights.get('*') ?? 0;
  return OURS.filter((coding) => weightOfCoding(coding) > 0).sort(
    (a, b) => weightOfCoding(b) - weightOfCoding(a),
  );
}

function canonicalName(name: string): string {
  return name === 'x-gzip' ? 'gzip' : name;
}

/** 1 without a `q`; 0 for a `q` that is not a qvalue (a malformed weight accepts nothing). */
function weightOf(parameters: string[]): number {
  for (const parameter of parameters) {
    const [key = '', value = ''] = parameter.split('=').map((part) => part.trim());
    if (key.toLowerCase() !== 'q') continue;
    return QVALUE.test(value) ? Number(value) : 0;
  }
  return 1;
}
