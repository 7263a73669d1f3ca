import { SERVER_FAILURE_MESSAGE } from '#app/monitoring/failure-view';

/**
 * The only form in which a server-side failure leaves the server: the generic message and the
 * digest. Start's serializer copies an error's own fields, message and (in development) stack
 * into the HTML and server-function payloads, so this error has nothing else to copy.
 */
export class PublicServerError extends Error {
  readonly digest: string;

  constructor(digest: string) {
    super(SERVER_FAILURE_MESSAGE);
    this.name = 'ServerError';
    this.digest = digest;
    // The development serializer sends the stack: make it say nothing about the server.
    this.stack = `${this.name}: ${this.message} (digest ${digest})`;
  }
}

export function isPublicServerError(error: unknown): error is PublicServerError {
  return error instanceof PublicServerError;
}
