/**
 * Structured JSON logs, one object per line on stdout. Values under keys that look like secrets are
 * redacted here, once, so no caller can leak a key or a privacy value by logging an object.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SECRET_KEY = /(api[_-]?key|authorization|token|secret|password|values|user_key)/i;

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(bindings: Record<string, unknown>): Logger;
  /** Info line of fields the runtime itself produced (no secrets possible): skips redaction. */
  trusted(msg: string, fields: Record<string, unknown>): void;
  readonly level: LogLevel;
}

export type LogSink = (line: string) => void;

function redact(value: unknown, depth = 0): unknown {
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return { name: value.name, message: value.message, code: (value as { code?: unknown }).code };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1);
  return out;
}

export function createLogger(level: LogLevel = 'info', sink: LogSink = (l) => process.stdout.write(l), bindings: Record<string, unknown> = {}): Logger {
  const min = LEVELS[level];
  const emit = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[lvl] < min) return;
    const entry = { level: lvl, time: new Date().toISOString(), msg, ...bindings, ...(fields ? (redact(fields) as object) : {}) };
    sink(JSON.stringify(entry) + '\n');
  };
  return {
    level,
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (b) => createLogger(level, sink, { ...bindings, ...b }),
    trusted: (msg, fields) => {
      if (LEVELS.info < min) return;
      sink(JSON.stringify({ level: 'info', time: new Date().toISOString(), msg, ...bindings, ...fields }) + '\n');
    },
  };
}
