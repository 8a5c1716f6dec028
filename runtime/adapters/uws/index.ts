/**
 * The only place that imports uWebSockets.js. The npm build we use silently falls back to a slow JS
 * shim when its native binary fails to load, so we load the binary by path and refuse to start
 * without it.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as UWS from '@trufflesuite/uws-js-unofficial';

const require = createRequire(import.meta.url);

export type TemplatedApp = UWS.TemplatedApp;
export type HttpResponse = UWS.HttpResponse;
export type HttpRequest = UWS.HttpRequest;
export type ListenSocket = UWS.us_listen_socket;
export type MultipartField = UWS.MultipartField;

function loadNative(): typeof UWS {
  const pkgDir = path.dirname(require.resolve('@trufflesuite/uws-js-unofficial/package.json'));
  const binary = path.join(pkgDir, 'binaries', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
  try {
    return require(binary) as typeof UWS;
  } catch (err) {
    throw new Error(
      `uWebSockets.js native binary did not load (${binary}); refusing to start on the slow JS fallback. ` +
        `Node ${process.version} (ABI ${process.versions.modules}) on ${process.platform}/${process.arch} needs a matching build.`,
      { cause: err },
    );
  }
}

export const uws = loadNative();

export function parseMultipart(body: Buffer, contentType: string): MultipartField[] | undefined {
  return uws.getParts(body, contentType);
}
