/**
 * The floor under a find with a remote embedder (issue 27, item 1): a uWebSockets.js server that
 * does nothing but what any such find must do in series — take the request, ask the embedder for
 * the query's vector with ctx's own model client (runtime/models/http-post.ts, the same bytes ctx
 * sends), wait for the answer, decode it, and answer an empty result. No auth, no schema, no
 * scope, no search, no records: the round trip a find cannot go below on this machine with this
 * stack, whatever it does in between. bench/vs-reference.ts times it against the bare embedder
 * call as it times the find.
 *   npx tsx bench/servers/bare-relay.ts --embedder http://127.0.0.1:PORT/v1
 * Prints `{"port": N}` when listening.
 */
import { uws } from '../../runtime/adapters/uws/index.js';
import { HttpPoster } from '../../runtime/models/http-post.js';

const i = process.argv.indexOf('--embedder');
const embedder = i > 0 ? process.argv[i + 1]! : '';
if (!embedder) throw new Error('--embedder URL is required');
const url = `${embedder}/embeddings`;
const poster = new HttpPoster();
const EMPTY = '{"status":"ok","result":{"memories":[],"resources":[],"skills":[],"total":0}}';

const app = uws.App();
app.post('/*', (res) => {
  let aborted = false;
  res.onAborted(() => (aborted = true));
  const chunks: Buffer[] = [];
  res.onData((ab, isLast) => {
    chunks.push(Buffer.from(new Uint8Array(ab).slice()));
    if (!isLast) return;
    const { query } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { query: string };
    poster
      .post(url, { 'content-type': 'application/json', accept: 'application/json' }, JSON.stringify({ model: 'bench-embed', input: [query], encoding_format: 'base64' }))
      .then((answer) => {
        // Decoded as ctx decodes it: the vector is in hand before the answer goes.
        const b64 = (JSON.parse(answer.text) as { data: Array<{ embedding: string }> }).data[0]!.embedding;
        // Copied out of the decoded bytes exactly as runtime/models/embedder.ts does (not the whole
        // pooled slab `Buffer.buffer` may be).
        const bytes = Buffer.from(b64, 'base64');
        const vec = new Float32Array(bytes.length / 4);
        new Uint8Array(vec.buffer).set(bytes);
        if (aborted) return;
        res.cork(() => res.writeHeader('content-type', 'application/json').end(vec.length ? EMPTY : '{}'));
      })
      .catch((err: Error) => {
        if (!aborted) res.cork(() => res.writeStatus('502 Bad Gateway').end(JSON.stringify({ status: 'error', error: { code: 'UNAVAILABLE', message: err.message } })));
      });
  });
});
app.listen('127.0.0.1', 0, (socket) => {
  if (!socket) process.exit(1);
  process.stdout.write(JSON.stringify({ port: uws.us_socket_local_port(socket as never) }) + '\n');
});
