import { CtxError } from '../errors.js';

const SHOWN_MAX = 200;

/** The input as shown in messages: JSON-quoted (control characters escaped) and truncated. */
export function shown(input: string): string {
  return JSON.stringify(input.length > SHOWN_MAX ? `${input.slice(0, SHOWN_MAX)}…` : input);
}

/** INVALID_URI naming the request field; `details.uri` holds the (truncated) input. */
export function invalidUriFor(field: string, input: string, reason: string, extra?: Record<string, unknown>): CtxError {
  const uri = input.length > SHOWN_MAX ? `${input.slice(0, SHOWN_MAX)}…` : input;
  return new CtxError('INVALID_URI', `invalid ${field} ${shown(input)}: ${reason}`, { field, uri, ...extra });
}

/**
 * PERMISSION_DENIED for a `.` or `..` segment. Nothing is ever resolved against them (the VFS has
 * no such entries), but the reference product answers a traversal attempt as a denied access,
 * not as a malformed URI, and its clients test for that status.
 */
export function traversalDenied(field: string, input: string, segment: string): CtxError {
  const uri = input.length > SHOWN_MAX ? `${input.slice(0, SHOWN_MAX)}…` : input;
  return new CtxError('PERMISSION_DENIED', `${field} ${shown(input)}: "${segment}" path segments (path traversal) are not allowed`, { field, uri, resource: uri });
}

/** INVALID_ARGUMENT for a value that is not a string at all. */
export function notAString(field: string, input: unknown): CtxError {
  const got = input === null ? 'null' : Array.isArray(input) ? 'array' : typeof input;
  const message = input === undefined || input === null ? `${field} is required` : `${field} must be a string, got ${got}`;
  return new CtxError('INVALID_ARGUMENT', message, { field });
}
