/**
 * `node --import ./bench/module-load-hook.mjs dist/runtime/main.js`: counts every module the
 * process loads (ES modules through a loader hook, CommonJS through `Module._load`) and, at exit
 * (or on SIGUSR2), writes one JSON line to stderr per group (npm package or repo folder): files,
 * bytes of source, and for CommonJS the time in `require` inclusive of what it required.
 * `bench/startup-profile.ts --modules` uses it; alone it answers "what is loaded before healthy".
 */
import { register, createRequire } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
import fs from 'node:fs';

const urls = new Map(); // url -> bytes
const { port1, port2 } = new MessageChannel();
port1.on('message', (m) => urls.set(m.url, m.bytes));
port1.unref();
register(
  'data:text/javascript,' +
    encodeURIComponent(`let port;
export function initialize(d) { port = d.port; }
export async function load(url, ctx, next) {
  const r = await next(url, ctx);
  const s = r.source;
  port.postMessage({ url, bytes: s == null ? 0 : (typeof s === 'string' ? Buffer.byteLength(s) : s.byteLength) });
  return r;
}`),
  { data: { port: port2 }, transferList: [port2] },
);

const require = createRequire(import.meta.url);
const Module = require('node:module');
const cjsMs = new Map();
const origLoad = Module._load;
Module._load = function (request, parent, isMain) {
  let file;
  try { file = Module._resolveFilename(request, parent, isMain); } catch { return origLoad.apply(this, arguments); }
  if (!file.startsWith('/') || Module._cache[file]) return origLoad.apply(this, arguments);
  const t0 = performance.now();
  try { return origLoad.apply(this, arguments); }
  finally {
    const url = 'file://' + file;
    cjsMs.set(url, performance.now() - t0);
    if (!urls.has(url)) { try { urls.set(url, fs.statSync(file).size); } catch { urls.set(url, 0); } }
  }
};

const groupOf = (url) => {
  if (!url.startsWith('file://')) return url.split(':')[0] + ':';
  const f = url.slice(7);
  const nm = f.lastIndexOf('/node_modules/');
  if (nm >= 0) { const r = f.slice(nm + 14).split('/'); return 'npm ' + (r[0].startsWith('@') ? r[0] + '/' + r[1] : r[0]); }
  const m = /\/dist\/(.*)$/.exec(f) ?? /\/([^/]+\/[^/]+\/[^/]+)$/.exec(f);
  const parts = (m ? m[1] : f).split('/');
  return parts.length > 2 ? parts[0] + '/' + parts[1] : parts[0];
};
function report() {
  const g = new Map();
  for (const [url, bytes] of urls) {
    const k = groupOf(url);
    const e = g.get(k) ?? { group: k, files: 0, bytes: 0, cjs_require_ms_top: 0 };
    e.files++; e.bytes += bytes; g.set(k, e);
  }
  // Inclusive CJS time per group: only a group's entry points (required from another group).
  for (const [url, ms] of cjsMs) { const e = g.get(groupOf(url)); e.cjs_require_ms_top = Math.max(e.cjs_require_ms_top, ms); }
  const rows = [...g.values()].sort((a, b) => b.bytes - a.bytes);
  process.stderr.write(JSON.stringify({ module_load: { files: urls.size, bytes: rows.reduce((s, r) => s + r.bytes, 0), groups: rows } }) + '\n');
}
process.on('SIGUSR2', report);
