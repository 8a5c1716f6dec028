/**
 * Every error code the service emits, with its HTTP status, in one table (spec Part 1, "Errors";
 * the codes beyond the spec are listed in docs/architecture.md "Errors", kept in step by a test).
 * Codes are stable API; messages are free to change. Handlers throw `CtxError`; the runtime renders
 * the envelope `{status:'error', error:{code, message, details?}}`.
 */
export const ERROR_STATUS = {
  INVALID_ARGUMENT: 400,
  INVALID_URI: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  FAILED_PRECONDITION: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  // The spec only says "non-2xx"; 422 tells clients the request was understood but its content failed.
  PROCESSING_ERROR: 422,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class CtxError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CtxError';
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const invalidArgument = (message: string, details?: Record<string, unknown>) =>
  new CtxError('INVALID_ARGUMENT', message, details);
export const invalidUri = (message: string, uri?: string) =>
  new CtxError('INVALID_URI', message, uri === undefined ? undefined : { uri });
export const notFound = (message: string, details?: Record<string, unknown>) => new CtxError('NOT_FOUND', message, details);
export const permissionDenied = (message: string, details?: Record<string, unknown>) =>
  new CtxError('PERMISSION_DENIED', message, details);
export const conflict = (message: string, resource?: string, details?: Record<string, unknown>) =>
  new CtxError('CONFLICT', message, resource === undefined ? details : { resource, ...details });
export const failedPrecondition = (message: string, details?: Record<string, unknown>) =>
  new CtxError('FAILED_PRECONDITION', message, details);
export const unavailable = (message: string, details?: Record<string, unknown>) =>
  new CtxError('UNAVAILABLE', message, details);

/**
 * By shape, not `instanceof`: a plugin installed as its own package may load a second copy of the
 * SDK, whose CtxError class is a different object with the same contract.
 */
export function isCtxError(err: unknown): err is CtxError {
  if (err instanceof CtxError) return true;
  if (!(err instanceof Error) || err.name !== 'CtxError') return false;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && Object.hasOwn(ERROR_STATUS, code);
}
