/**
 * `npm start`'s server as one ES module graph of a few files: dist/runtime/main.js (tsc's output)
 * and the npm packages it loads at start, bundled by esbuild into dist/server/ with code splitting, so the
 * lazily imported parts (cluster, gRPC, the MCP SDK, …) stay lazy. Why: Node 20's ES module loader
 * costs about a millisecond of CPU per file, and the server loaded ~700 files before `/health`
 * answered (bench/RESULTS.md, issue 27: CPU to healthy 820 → 340 ms).
 *
 * The bundle runs from dist/server/ but every module keeps the location it was compiled for:
 * `import.meta.url`, `import.meta.dirname`, `__dirname` and `__filename` are replaced by the source
 * file's own (relative to the bundle, so the tree can move), so `createRequire(import.meta.url)` (the lazy `require`s of yaml, isomorphic-git,
 * mammoth…), the model directory, the console's assets and the NATS binary resolve as from dist/.
 *
 * The plugin SDK (`ctx/plugin`, `ctx/testing`) is an entry of the same build: an out-of-tree plugin
 * importing it shares the bundle's module instances (Reply, CtxError, the schema classes) exactly as
 * it shares dist/runtime's when the server runs unbundled (runtime/plugin-loader.ts).
 *
 *   node --import tsx scripts/bundle-server.ts   (after `npx tsc -p tsconfig.build.json`; setup.sh runs both)
 */
import { build, type Plugin } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(import.meta.dirname, '..');
const DIST = path.join(ROOT, 'dist');
const OUT = path.join(DIST, 'server');

/**
 * The npm packages the server loads before `/health` answers (`node --import
 * ./bench/module-load-hook.mjs dist/runtime/main.js` lists them): bundled. Every other package
 * (native addons, the lazily loaded gRPC, MCP SDK, NATS client, document converters, esbuild…)
 * stays outside and is loaded by Node from node_modules when first needed, exactly as unbundled,
 * so a package that finds files next to itself keeps working. A start-up dependency missing here
 * only costs start-up time, never correctness.
 */
export const BUNDLED_PACKAGES = ['@sinclair/typebox', '@opentelemetry/api', 'fflate', 'semver', 'import-meta-resolve', 'smol-toml', 'ignore'];

const SELF = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string }).name;
const packageOf = (spec: string) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');
const onlyStartupPackages: Plugin = {
  name: 'only-start-up-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./#]/ }, (args) => {
      // `ctx/plugin` is this package's own SDK: one copy, inside the bundle.
      if (args.path.startsWith('node:') || packageOf(args.path) === SELF || BUNDLED_PACKAGES.includes(packageOf(args.path))) return undefined;
      // Node built-ins without the prefix are external to esbuild anyway (platform: node).
      return { path: args.path, external: true };
    });
  },
};

/**
 * Every output file lands in dist/server/ (chunks too), so a module's source location is one fixed
 * relative path from whichever output file holds it: the bundle stays relocatable with the tree.
 */
const fromOut = (file: string) => `new URL(${JSON.stringify(path.relative(OUT, file))}, import.meta.url)`;

const keepLocation: Plugin = {
  name: 'keep-module-location',
  setup(b) {
    b.onLoad({ filter: /\.(c|m)?js$/ }, async (args) => {
      let src = await fs.promises.readFile(args.path, 'utf8');
      const file = fromOut(args.path);
      const dir = `decodeURIComponent(${fromOut(path.dirname(args.path) + '/')}.pathname).slice(0, -1)`;
      if (src.includes('import.meta'))
        src = src
          .replaceAll('import.meta.url', `${file}.href`)
          .replaceAll('import.meta.dirname', dir)
          .replaceAll('import.meta.filename', `decodeURIComponent(${file}.pathname)`);
      // CommonJS modules are wrapped in a function by esbuild: these become that function's locals.
      if (/\b__(dirname|filename)\b/.test(src) && !/^\s*(import|export)\s/m.test(src))
        src = `var __dirname = ${dir}, __filename = decodeURIComponent(${file}.pathname);\n${src}`;
      return { contents: src, loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

export async function bundleServer(): Promise<void> {
  const entries = ['runtime/main.js', 'runtime/sdk/index.js', 'runtime/sdk/testing.js'].map((f) => path.join(DIST, f));
  for (const e of entries) if (!fs.existsSync(e)) throw new Error(`${e} is missing: run npx tsc -p tsconfig.build.json first`);
  fs.rmSync(OUT, { recursive: true, force: true });
  await build({
    entryPoints: { main: entries[0]!, sdk: entries[1]!, testing: entries[2]! },
    outdir: OUT,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Error and class names are read at run time (isCtxError checks `name`; logs print them).
    keepNames: true,
    // The Rust core is loaded through `createRequire` (runtime/native.ts): never seen by esbuild.
    external: ['#core-native'],
    // Not tsconfig.json's `paths`: they point `ctx/plugin` at the TypeScript sources (for tsx and
    // vitest); the built server resolves it as Node does, through the package's `exports`.
    tsconfigRaw: '{}',
    plugins: [onlyStartupPackages, keepLocation],
    // Bundled CommonJS packages call `require` for Node's built-ins.
    // and the plugin loader learns where the bundle's SDK entries are (runtime/plugin-loader.ts).
    banner: {
      js: "import { createRequire as __ctxCreateRequire } from 'node:module'; const require = __ctxCreateRequire(import.meta.url); globalThis.__ctxBundleDir ??= new URL('./', import.meta.url).href;",
    },
    chunkNames: 'chunk-[hash]',
    logLevel: 'warning',
    legalComments: 'none',
  });
  fs.writeFileSync(path.join(OUT, 'package.json'), JSON.stringify({ type: 'module', private: true }) + '\n');
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await bundleServer();
