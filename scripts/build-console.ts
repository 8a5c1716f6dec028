/** `npm run build:console` (and setup): builds the web console into dist/console/. */
import { buildConsole, defaultOutDir } from '../plugins/console/build.js';

const started = Date.now();
const m = await buildConsole();
const gz = Object.entries(m.files).filter(([f]) => f !== 'index.html').reduce((n, [, v]) => n + v.gzip, 0);
console.log(`console built into ${defaultOutDir()} in ${Date.now() - started} ms: ${m.entry}, ${m.stylesheet} (${(gz / 1024).toFixed(1)} KiB gzipped JS+CSS)`);
