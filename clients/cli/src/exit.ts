/** Exit codes and how every failure is printed: the server's code and message, never a stack trace. */
export const EXIT = { OK: 0, API: 1, USAGE: 2, CONNECT: 3 } as const;

/** A usage mistake found after parsing (bad JSON in a flag, a missing file). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Maps any error to its exit code and one line (or, with --json, one JSON object) on stderr. */
export function report(err: unknown, json: boolean): number {
  const e = err as { name?: string; code?: unknown; message?: string; status?: number; details?: unknown; requestId?: string; url?: string };
  let code: number;
  let payload: Record<string, unknown>;
  if (e?.name === 'CtxApiError') {
    code = EXIT.API;
    payload = { code: e.code, status: e.status, message: e.message, details: e.details, request_id: e.requestId };
  } else if (e?.name === 'CtxConnectionError') {
    code = EXIT.CONNECT;
    payload = { code: 'CANNOT_CONNECT', message: e.message };
  } else if (e?.name === 'UsageError') {
    code = EXIT.USAGE;
    payload = { code: 'USAGE', message: e.message };
  } else if (e?.name === 'AbortError' || e?.name === 'TimeoutError') {
    code = EXIT.API;
    payload = { code: 'DEADLINE_EXCEEDED', message: e.message ?? 'timed out' };
  } else {
    // Local failures (a file that cannot be read, a broken pipe) are reported the same way.
    code = EXIT.API;
    const sys = typeof e?.code === 'string' ? e.code : 'ERROR';
    payload = { code: sys, message: e?.message ?? String(err) };
  }
  if (json) process.stderr.write(JSON.stringify({ status: 'error', error: payload }) + '\n');
  else {
    const extra = payload.details && Object.keys(payload.details as object).length ? ` ${JSON.stringify(payload.details)}` : '';
    // Red code on a terminal, under the same rules as stdout's colour (NO_COLOR, --no-color, TERM=dumb).
    const color = Boolean(process.stderr.isTTY) && !process.env.NO_COLOR && process.env.TERM !== 'dumb' && !process.argv.includes('--no-color');
    const label = color ? `\u001b[31m${String(payload.code)}\u001b[39m` : String(payload.code);
    process.stderr.write(`ctx: ${label}: ${payload.message}${extra}\n`);
  }
  return code;
}
