/**
 * Structured JSON logs, one object per line on stdout. Values under keys that look like secrets are
 * redacted here, once, so no caller can leak a key or a privacy value by logging an object.
 *
 * Lines bound for stdout are batched: one write per event-loop turn instead of one per line (each
 * write is a syscall on the JS thread, and with the access log on that was one per request:
 * bench/RESULTS.md, HTTP host). Batches go out with a synchronous write to fd 1, never through
 * libuv's queue: a queued write is dropped when the process exits, which would cut a batch (and a
 * line) in two. Warnings and errors flush at once, and whatever is buffered is written on `exit`
 * and by `flushLogs()` (the app calls it when it closes), so no line is lost on a normal stop.
 */
import { writeSync } from 'node:fs';
import { currentTrace } from './tracing/tracing.js';

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
  /**
   * `trusted` with the fields already serialized by the caller (the access log, once per request):
   * `fieldsJson` is `,"key":value` pairs, each led by a comma, in the order they should appear.
   * Same line as `trusted` with those fields.
   */
  trustedJson(msg: string, fieldsJson: string): void;
  readonly level: LogLevel;
}

export type LogSink = (line: string) => void;

/** Past this many buffered characters a batch is written at once instead of at the end of the turn. */
const MAX_BUFFERED = 64 * 1024;

/** One buffer for every logger that writes to stdout, so lines keep their order across loggers. */
class StdoutLines {
  private lines: string[] = [];
  private size = 0;
  private scheduled = false;
  private exitHooked = false;

  write(line: string): void {
    this.lines.push(line);
    this.size += line.length;
    if (this.size >= MAX_BUFFERED) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    if (!this.exitHooked) {
      this.exitHooked = true;
      // Timers and immediates do not run once `exit` starts.
      process.once('exit', () => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    if (this.lines.length === 0) return;
    const text = this.lines.length === 1 ? this.lines[0]! : this.lines.join('');
    this.lines = [];
    this.size = 0;
    writeAllSync(1, text);
  }
}

/**
 * libuv leaves a stdout pipe non-blocking once `process.stdout` exists: a writeSync may write part
 * of the text or fail with EAGAIN while the reader catches up. Retries until all of it is out (the
 * reader's pace, like a blocking write), giving up after a few seconds so a stuck reader cannot
 * hang the service; a closed stdout drops the text (there is nowhere to write it).
 */
function writeAllSync(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  let deadline = 0;
  let pause: Int32Array | undefined;
  for (let off = 0; off < bytes.length; ) {
    try {
      off += writeSync(fd, bytes, off);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      deadline ||= Date.now() + 5000;
      if (Date.now() > deadline) return;
      Atomics.wait((pause ??= new Int32Array(new SharedArrayBuffer(4))), 0, 0, 1);
    }
  }
}

const stdoutLines = new StdoutLines();
const toStdout: LogSink = (line) => stdoutLines.write(line);

/** Writes buffered stdout log lines now (graceful shutdown; tests reading stdout). */
export function flushLogs(): void {
  stdoutLines.flush();
}

let isoMs = 0;
let isoText = '';
/** `new Date().toISOString()`, formatted once per millisecond: it cost more than the rest of an access-log line. */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== isoMs) {
    isoMs = ms;
    isoText = new Date(ms).toISOString();
  }
  return isoText;
}

function redact(value: unknown, depth = 0): unknown {
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return { name: value.name, message: value.message, code: (value as { code?: unknown }).code };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1);
  return out;
}

export function createLogger(level: LogLevel = 'info', sink: LogSink = toStdout, bindings: Record<string, unknown> = {}): Logger {
  const min = LEVELS[level];
  // For trustedJson: the bindings as `,"key":value` text, and how each key would appear in the fields.
  const bindingKeys = Object.keys(bindings);
  const bindingsJson = bindingKeys.length ? ',' + JSON.stringify(bindings).slice(1, -1) : '';
  const bindingNeedles = bindingKeys.map((k) => ',' + JSON.stringify(k) + ':');
  const emit = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[lvl] < min) return;
    // Inside a request, task or queue message: its request id and trace id, whoever logs.
    const t = currentTrace();
    const traceFields = t ? (t.reqId !== undefined ? { req_id: t.reqId, trace_id: t.traceId } : { trace_id: t.traceId }) : undefined;
    const entry = { level: lvl, time: isoNow(), msg, ...traceFields, ...bindings, ...(fields ? (redact(fields) as object) : {}) };
    sink(JSON.stringify(entry) + '\n');
    // A warning or an error may come just before a crash that skips `exit` (a native abort).
    if (sink === toStdout && LEVELS[lvl] >= LEVELS.warn) stdoutLines.flush();
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
      const t = currentTrace();
      const traceFields = t ? (t.reqId !== undefined ? { req_id: t.reqId, trace_id: t.traceId } : { trace_id: t.traceId }) : undefined;
      sink(JSON.stringify({ level: 'info', time: isoNow(), msg, ...traceFields, ...bindings, ...fields }) + '\n');
    },
    trustedJson(msg, fieldsJson) {
      if (LEVELS.info < min) return;
      // A field may replace a bound key in place (the spread in `trusted`): leave that rare case to
      // JSON.stringify. A needle found inside a value only takes this exact slower path.
      for (const needle of bindingNeedles)
        if (fieldsJson.includes(needle)) return this.trusted(msg, JSON.parse('{' + fieldsJson.slice(1) + '}') as Record<string, unknown>);
      // isoNow() is plain ASCII digits and punctuation: no escaping needed.
      sink('{"level":"info","time":"' + isoNow() + '","msg":' + JSON.stringify(msg) + bindingsJson + fieldsJson + '}\n');
    },
  };
}
