/** Every tool the MCP endpoint serves, in the order `tools/list` gives them. */
import type { ToolDef } from '../tool.js';
import { codeExpand, codeOutline, codeSearch } from './code.js';
import { forget, list, mkdir, move, read, stat, tag, tree } from './files.js';
import { remember, sessionContext, skills } from './memory.js';
import { addResource, cancelWatch, listWatches, watch } from './resources.js';
import { find, glob, grep, search } from './search.js';
import { health, taskStatus } from './system.js';
import { edit, write } from './write.js';

export const TOOLS: ToolDef[] = [
  find, search, read, list, tree, stat, grep, glob,
  write, edit, mkdir, move, forget, tag,
  addResource, watch, listWatches, cancelWatch,
  remember, sessionContext, skills, taskStatus,
  codeOutline, codeSearch, codeExpand, health,
];
