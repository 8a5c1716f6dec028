/**
 * Writes docs/openapi.json from the routes an app with the built-in plugins registers (the same
 * document `GET /api/v1/openapi.json` serves, with the default configuration).
 *   npm run openapi        (writes the file)
 *   npm run openapi -- --check   (exits 1 when the file is stale)
 * test/http/openapi.test.ts fails when the committed file is stale.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createApp } from '../runtime/app.js';
import { buildOpenApi } from '../runtime/http/openapi.js';
import { builtinPlugins } from '../plugins/index.js';

export const OPENAPI_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'openapi.json');

/** The document as docs/openapi.json holds it (two-space JSON and a final newline). */
export async function generateOpenApiText(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctx-openapi-'));
  try {
    // Fixed configuration: the file must not depend on the environment it was generated in.
    const app = await createApp({
      env: {},
      plugins: builtinPlugins,
      config: { dataDir: dir, rootApiKey: 'openapi-generator-root-key-0123456789', authMode: 'api_key', logLevel: 'silent', accessLog: false },
    });
    try {
      return JSON.stringify(buildOpenApi(app.pipeline.routes()), null, 2) + '\n';
    } finally {
      await app.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const text = await generateOpenApiText();
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(OPENAPI_FILE) ? fs.readFileSync(OPENAPI_FILE, 'utf8') : '';
    if (current !== text) {
      console.error(`${path.relative(process.cwd(), OPENAPI_FILE)} is stale: run npm run openapi`);
      process.exit(1);
    }
  } else {
    fs.writeFileSync(OPENAPI_FILE, text);
    console.log(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)}`);
  }
}
