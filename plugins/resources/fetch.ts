/**
 * Reading a source over the network or from the host: http(s) downloads with a size cap and
 * checked redirects, and the guard on the addresses a request may make the server reach. A
 * private, loopback or link-local address is refused unless the operator allows it
 * (`importAllowPrivate`): otherwise any user could make the server read its own network (SSRF).
 * The check resolves the name first; a name that changes its answer between the check and the
 * connection (DNS rebinding) is not covered.
 */
import dns from 'node:dns/promises';
import net from 'node:net';
import { invalidArgument } from 'ctx/plugin';

export const MAX_DOWNLOAD_BYTES = 64 * 1024 * 1024;
const MAX_REDIRECTS = 5;
export const FETCH_TIMEOUT_MS = 60_000;

function privateV4(a: string): boolean {
  const [x, y] = a.split('.').map(Number) as [number, number];
  return x === 0 || x === 10 || x === 127 || (x === 169 && y === 254) || (x === 172 && y >= 16 && y <= 31) || (x === 192 && y === 168) || (x === 100 && y >= 64 && y <= 127) || x >= 224;
}

export function isPrivateAddress(addr: string): boolean {
  if (net.isIPv4(addr)) return privateV4(addr);
  const a = addr.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return privateV4(mapped[1]!);
  return a === '::' || a === '::1' || /^f[cd]/.test(a) || /^fe[89ab]/.test(a) || /^ff/.test(a);
}

/** Throws 400 when `url` is not http(s) or (unless allowed) reaches a private address. */
export async function checkRemote(url: URL, allowPrivate: boolean, field = 'path'): Promise<void> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidArgument(`${field}: only http and https URLs are imported, got ${url.protocol}`, { field });
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addrs = net.isIP(host) ? [host] : (await dns.lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
  if (addrs.length === 0) throw invalidArgument(`${field}: cannot resolve host ${JSON.stringify(host)}`, { field });
  if (addrs.some(isPrivateAddress)) throw invalidArgument(`${field}: ${host} is a private, loopback or link-local address; the server does not import from its own network`, { field });
}

/** Without user name and password: what may be shown, stored and logged. */
export function publicUrl(url: URL): string {
  const u = new URL(url.href);
  u.username = '';
  u.password = '';
  return u.href;
}

export interface Download {
  data: Buffer;
  contentType: string;
  url: URL;
}

export async function download(start: URL, opts: { signal: AbortSignal; allowPrivate: boolean }): Promise<Download> {
  const signal = AbortSignal.any([opts.signal, AbortSignal.timeout(FETCH_TIMEOUT_MS)]);
  let url = start;
  for (let hop = 0; ; hop++) {
    await checkRemote(url, opts.allowPrivate);
    const res = await fetch(url, { redirect: 'manual', signal, headers: { accept: 'text/html,text/markdown,text/plain,*/*;q=0.8', 'user-agent': 'ctx-import/1' } }).catch((err: Error) => {
      if (signal.aborted && !opts.signal.aborted) throw invalidArgument(`fetching ${publicUrl(url)} took longer than ${FETCH_TIMEOUT_MS / 1000} s`, { field: 'path' });
      throw invalidArgument(`cannot fetch ${publicUrl(url)}: ${(err.cause as Error | undefined)?.message ?? err.message}`, { field: 'path' });
    });
    if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
      await res.body?.cancel();
      if (hop >= MAX_REDIRECTS) throw invalidArgument(`${publicUrl(start)} redirects more than ${MAX_REDIRECTS} times`, { field: 'path' });
      url = new URL(res.headers.get('location')!, url);
      continue;
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw invalidArgument(`fetching ${publicUrl(url)} answered HTTP ${res.status}`, { field: 'path', http_status: res.status });
    }
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (declared > MAX_DOWNLOAD_BYTES) {
      await res.body?.cancel();
      throw invalidArgument(`${publicUrl(url)} is larger than ${MAX_DOWNLOAD_BYTES} bytes`, { field: 'path', max: MAX_DOWNLOAD_BYTES });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body ?? []) {
      size += chunk.length;
      if (size > MAX_DOWNLOAD_BYTES) throw invalidArgument(`${publicUrl(url)} is larger than ${MAX_DOWNLOAD_BYTES} bytes`, { field: 'path', max: MAX_DOWNLOAD_BYTES });
      chunks.push(Buffer.from(chunk));
    }
    return { data: Buffer.concat(chunks, size), contentType: res.headers.get('content-type') ?? '', url };
  }
}
