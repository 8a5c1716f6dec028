/** The built-in plugins, in no particular order: the loader orders them by `dependsOn`. */
import type { PluginDefinition } from 'ctx/plugin';
import admin from './admin/index.js';
import bot from './bot/index.js';
import codeNav from './code-nav/index.js';
import compile from './compile/index.js';
import consolePlugin from './console/index.js';
import content from './content/index.js';
import fs from './fs/index.js';
import gatewayProxy from './gateway-proxy/index.js';
import mcp from './mcp/index.js';
import migration from './migration/index.js';
import packs from './packs/index.js';
import privacy from './privacy/index.js';
import relations from './relations/index.js';
import resources from './resources/index.js';
import retrieval from './retrieval/index.js';
import semantic from './semantic/index.js';
import sessions from './sessions/index.js';
import skills from './skills/index.js';
import snapshots from './snapshots/index.js';
import system from './system/index.js';
import tasks from './tasks/index.js';

export const builtinPlugins: PluginDefinition[] = [system, admin, tasks, content, fs, retrieval, semantic, privacy, relations, sessions, skills, snapshots, packs, resources, compile, gatewayProxy, bot, migration, codeNav, consolePlugin, mcp];
