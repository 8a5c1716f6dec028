/** ctx-client: the typed client of the ctx context store (fetch only: Node 20+ and browsers). */
export { CtxClient } from './client.js';
export { CtxApiError, CtxConnectionError, isCtxApiError } from './errors.js';
export { CONSISTENCY_TOKEN_HEADER, DEFAULT_URL, Transport, type ClientOptions, type FetchInit, type FetchLike, type HttpHeaders, type HttpResponse, type RetryOptions } from './transport.js';
export { readSse, type SseMessage } from './sse.js';
export { isTerminal, type TaskEvent, type TaskRecord, type WaitOptions } from './tasks.js';
export type { BotStreamEvent } from './groups/ops.js';
export type { Download } from './groups/define.js';
export { routes } from './generated/routes.js';
export type * from './types.js';
