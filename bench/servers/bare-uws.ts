/** Baseline: uWebSockets.js hello-world, the ceiling our host is measured against. */
import { uws } from '../../runtime/adapters/uws/index.js';

const app = uws.App();
app.get('/*', (res) => {
  res.cork(() => res.writeHeader('content-type', 'application/json').end('{"status":"ok"}'));
});
app.listen('127.0.0.1', 0, (socket) => {
  if (!socket) process.exit(1);
  process.stdout.write(JSON.stringify({ port: uws.us_socket_local_port(socket as never) }) + '\n');
});
