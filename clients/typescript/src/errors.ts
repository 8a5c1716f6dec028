/** Typed failures: the server's error envelope, and not reaching the server at all. */
import type { HttpResponse } from './transport.js';

/** The server answered with an error envelope (or a non-2xx status without one). */
export class CtxApiError extends Error {
  override readonly name = 'CtxApiError';
  constructor(
    /** The spec's error code, e.g. `NOT_FOUND`, `INVALID_ARGUMENT`. */
    readonly code: string,
    message: string,
    /** HTTP status. */
    readonly status: number,
    /** The envelope's `details` (offending field or resource). */
    readonly details: Record<string, unknown> | undefined,
    /** The server's `x-request-id`, to find the request in its logs. */
    readonly requestId: string | undefined,
  ) {
    super(message);
  }
}

/** The request never got an HTTP answer (refused, reset, DNS, timeout). */
export class CtxConnectionError extends Error {
  override readonly name = 'CtxConnectionError';
  constructor(
    message: string,
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isCtxApiError(err: unknown, code?: string): err is CtxApiError {
  return err instanceof CtxApiError && (code === undefined || err.code === code);
}

/** Builds the typed error from a failed response; never throws itself. */
export async function errorFromResponse(res: HttpResponse): Promise<CtxApiError> {
  const requestId = res.headers.get('x-request-id') ?? undefined;
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; details?: unknown }; detail?: unknown };
    const e = body.error;
    if (e && typeof e === 'object') {
      const code = typeof e.code === 'string' ? e.code : statusCode(res.status);
      const message = typeof e.message === 'string' ? e.message : res.statusText;
      const details = e.details && typeof e.details === 'object' ? (e.details as Record<string, unknown>) : undefined;
      return new CtxApiError(code, message, res.status, details, requestId);
    }
    // A proxied gateway body: `{detail}`.
    if (typeof body.detail === 'string') return new CtxApiError(statusCode(res.status), body.detail, res.status, undefined, requestId);
  } catch {
    // Not JSON: fall through to the status line.
  }
  return new CtxApiError(statusCode(res.status), text.slice(0, 500) || res.statusText || `HTTP ${res.status}`, res.status, undefined, requestId);
}

function statusCode(status: number): string {
  const byStatus: Record<number, string> = {
    400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 409: 'CONFLICT',
    412: 'FAILED_PRECONDITION', 413: 'PAYLOAD_TOO_LARGE', 429: 'RESOURCE_EXHAUSTED', 503: 'UNAVAILABLE',
  };
  return byStatus[status] ?? (status >= 500 ? 'INTERNAL' : `HTTP_${status}`);
}
