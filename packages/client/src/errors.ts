import type { ErrorMessage } from './generated/types.js';

/** Every error the client throws, aborts excepted (those reject with the signal's reason, as fetch does). */
export class LarderClientError extends Error {
  override name = 'LarderClientError';
}

/** The request an error answer is for: what the client sent, no header or body (they may carry a secret). */
export interface ApiErrorRequest {
  method: string;
  url: string;
}

/**
 * The server answered with an error: its `ErrorMessage` fields, the HTTP status, the request id and the request
 * (method and URL). `code` is undefined when the body was not an ErrorMessage (a proxy's HTML page, the OAuth
 * endpoint's RFC 6749 body).
 */
export class LarderApiError extends LarderClientError {
  override name = 'LarderApiError';
  readonly status: number;
  readonly code: number | undefined;
  readonly requestId: string | undefined;
  readonly fieldName: string | undefined;
  readonly developerMessage: string | undefined;
  readonly errors: ErrorMessage[];
  readonly canRetry: boolean;
  /** The error body as received, when it was an ErrorMessage. */
  readonly body: ErrorMessage | undefined;
  /** The request's method and URL (path and query): which of a program's calls failed. */
  readonly method: string;
  readonly url: string;

  constructor(
    status: number,
    body: ErrorMessage | undefined,
    requestId: string | undefined,
    text: string,
    request: ApiErrorRequest,
  ) {
    // The server's words alone ("No such endpoint.") do not say which call failed: the request is named too, in
    // the same sentence (its full stop moved after it).
    const sent = `${request.method} ${request.url}`;
    super(
      body === undefined
        ? `HTTP ${status} ${sent}${text === '' ? '' : `: ${text.slice(0, 200)}`}`
        : `${body.message.replace(/\.$/, '')} (${status} ${sent})`,
    );
    this.status = status;
    this.body = body;
    this.code = body?.code;
    this.requestId = body?.requestId ?? requestId;
    this.fieldName = body?.fieldName;
    this.developerMessage = body?.developerMessage;
    this.errors = body?.errors ?? [];
    this.canRetry = body?.canRetry === undefined ? status === 429 || status >= 500 : body.canRetry === 'true';
    this.method = request.method;
    this.url = request.url;
  }
}

/** The request never got an answer: refused or reset connection, DNS failure, a body cut off. */
export class LarderTransportError extends LarderClientError {
  override name = 'LarderTransportError';
}

/**
 * No answer within `timeoutMs` (per attempt, or what was left of `maxElapsedMs`, or without retries of the call's
 * `timeoutMs`, when less), or a call or a login it needed that its `maxElapsedMs` (its `timeoutMs` without
 * retries) left no time to send. A kind of transport error.
 */
export class LarderTimeoutError extends LarderTransportError {
  override name = 'LarderTimeoutError';
}
