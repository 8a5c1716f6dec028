/** Code navigation: code_outline, code_search, code_expand — /api/v1/code/*. Their answers are already text written for a model. */
import { s } from 'ctx/plugin';
import { defineTool, type ToolOutput } from '../tool.js';

/** code-nav answers bad input with 200 and an "Error: ..." text; a model should see that as a failed call. */
function codeOutput(text: unknown, fields: Record<string, unknown>): ToolOutput {
  const t = typeof text === 'string' ? text : JSON.stringify(text);
  return { text: t, structured: { ...fields, text: t }, isError: t.startsWith('Error:') };
}

export const codeOutline = defineTool({
  name: 'code_outline',
  title: 'Outline a source file',
  description: 'The symbols of an imported source file (classes, functions, methods, with line ranges), without their bodies. Use it to understand a file before reading it, then `code_expand` one symbol.',
  input: s.object({ uri: s.string({ min: 1 }).describe('ctx:// URI of a source file') }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(c, a) {
    return codeOutput(await c.call({ method: 'POST', path: '/api/v1/code/outline', body: a }), a);
  },
});

export const codeSearch = defineTool({
  name: 'code_search',
  title: 'Search symbols',
  description: 'Symbols whose name contains `query` (case-insensitive; `Class.method` matches qualified names) in a source file or every source file below a directory, with their files and line ranges.',
  input: s.object({ uri: s.string({ min: 1 }).describe('ctx:// URI of a file or directory'), query: s.string({ min: 1, max: 256 }).describe('part of a symbol name') }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(c, a) {
    return codeOutput(await c.call({ method: 'POST', path: '/api/v1/code/search', body: a }), a);
  },
});

export const codeExpand = defineTool({
  name: 'code_expand',
  title: 'Expand a symbol',
  description: 'The source of one symbol of a file (bare name, or qualified like Class.method), with its line range: read just the function you need instead of the whole file.',
  input: s.object({ uri: s.string({ min: 1 }).describe('ctx:// URI of a source file'), symbol: s.string({ min: 1, max: 512 }) }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(c, a) {
    return codeOutput(await c.call({ method: 'POST', path: '/api/v1/code/expand', body: a }), a);
  },
});
