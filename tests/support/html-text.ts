/** Page HTML with React's text separators (`<!-- -->`) removed, for asserting on visible text. */
export function withoutTextSeparators(html: string): string {
  return html.replaceAll('<!-- -->', '');
}
