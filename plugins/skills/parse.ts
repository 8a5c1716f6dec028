/**
 * Skill data (spec Part 3 "Skill data") turned into one normal form: a structured dict, SKILL.md
 * text (YAML frontmatter + markdown) or a tool definition (a dict with `inputSchema`). Field and
 * name problems are 400 INVALID_ARGUMENT naming the field; text that cannot be parsed as a SKILL.md
 * is PROCESSING_ERROR, as the spec asks of a synchronous parse failure.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { CtxError, RESERVED_IDS, invalidArgument } from 'ctx/plugin';

// Required on first use, not at start-up (bench/RESULTS.md, start-up); the CommonJS build keeps parsing synchronous.
let yaml: typeof Yaml | undefined;
const yamlLib = (): typeof Yaml => (yaml ??= createRequire(import.meta.url)('yaml') as typeof Yaml);

export interface Skill {
  name: string;
  description: string;
  allowedTools: string[];
  tags: string[];
  /** The SKILL.md stored as L2: the caller's own text for SKILL.md input, generated otherwise. */
  skillMd: string;
  /** Dict fields that are neither skill data nor a tool definition (kept out of SKILL.md). */
  ignoredFields: string[];
}

export const MAX_NAME = 64;
/** Characters the reference allows in a skill name; the first must also start a ctx:// id. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const FRONTMATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n([\s\S]*))?$/;
const DICT_FIELDS = new Set(['name', 'description', 'content', 'allowed_tools', 'allowed-tools', 'tags']);
const TOOL_FIELDS = new Set(['name', 'description', 'inputSchema', 'title', 'annotations', 'outputSchema']);

export const parseError = (message: string, details: Record<string, unknown> = {}) => new CtxError('PROCESSING_ERROR', `skill parse error: ${message}`, details);

export function checkName(name: unknown, field: string): string {
  if (name === undefined || name === null) throw invalidArgument(`a skill needs a name (${field})`, { field });
  if (typeof name !== 'string') throw invalidArgument(`${field} must be a string`, { field });
  const n = name.trim();
  if (!n) throw invalidArgument(`${field} must not be empty`, { field });
  if (n.length > MAX_NAME) throw invalidArgument(`${field} is longer than ${MAX_NAME} characters`, { field, max_length: MAX_NAME });
  if (!NAME.test(n)) throw invalidArgument(`${field} ${JSON.stringify(n)} may only hold ASCII letters, digits, "_" and "-", starting with a letter or digit`, { field });
  if (RESERVED_IDS.has(n)) throw invalidArgument(`${field} ${JSON.stringify(n)} is a reserved word`, { field });
  return n;
}

function optionalText(v: unknown, field: string): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw invalidArgument(`${field} must be a string`, { field });
  return v;
}

/** A string list; `allowed-tools` may also be one space-separated string (the Agent Skills form). */
function stringList(v: unknown, field: string, splitString: boolean): string[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string' && splitString) return v.split(/\s+/).filter(Boolean);
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw invalidArgument(`${field} must be an array of strings`, { field });
  return (v as string[]).map((x) => x.trim()).filter(Boolean);
}

function allowedToolsOf(o: Record<string, unknown>, prefix: string): string[] {
  const under = o.allowed_tools;
  const hyphen = o['allowed-tools'];
  if (under !== undefined && hyphen !== undefined) throw invalidArgument(`${prefix}allowed_tools and ${prefix}allowed-tools are the same field; give one`, { field: `${prefix}allowed_tools` });
  return under !== undefined ? stringList(under, `${prefix}allowed_tools`, true) : stringList(hyphen, `${prefix}allowed-tools`, true);
}

function renderSkillMd(meta: { name: string; description: string; allowedTools: string[]; tags: string[] }, body: string): string {
  const front: Record<string, unknown> = { name: meta.name, description: meta.description };
  if (meta.allowedTools.length) front['allowed-tools'] = meta.allowedTools;
  if (meta.tags.length) front.tags = meta.tags;
  return `---\n${yamlLib().stringify(front).trimEnd()}\n---\n\n${body.trim()}\n`;
}

/** Any accepted form of `data` (or an uploaded SKILL.md / JSON file's text). */
export function parseSkillData(data: unknown): Skill {
  if (typeof data === 'string') return parseSkillMd(data);
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw invalidArgument('data must be a skill object, a tool definition or SKILL.md text', { field: 'data' });
  const o = data as Record<string, unknown>;
  return 'inputSchema' in o ? parseToolDefinition(o) : parseDict(o);
}

function parseDict(o: Record<string, unknown>): Skill {
  const name = checkName(o.name, 'data.name');
  const description = optionalText(o.description, 'data.description');
  const content = optionalText(o.content, 'data.content');
  const allowedTools = allowedToolsOf(o, 'data.');
  const tags = stringList(o.tags, 'data.tags', false);
  const meta = { name, description, allowedTools, tags };
  // A body that is empty would leave nothing to index at L2 but the frontmatter.
  const body = content.trim() ? content : `# ${name}\n\n${description}`;
  return { ...meta, skillMd: renderSkillMd(meta, body), ignoredFields: Object.keys(o).filter((k) => !DICT_FIELDS.has(k)) };
}

export function parseSkillMd(text: string): Skill {
  const m = FRONTMATTER.exec(text);
  if (!m) throw parseError('SKILL.md must start with YAML frontmatter between "---" lines', { field: 'data' });
  const doc = yamlLib().parseDocument(m[1]!, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length) throw parseError(`invalid YAML frontmatter: ${doc.errors[0]!.message}`, { field: 'data' });
  let meta: unknown;
  try {
    // yaml's default alias budget refuses "billion laughs" expansions.
    meta = doc.toJS();
  } catch (err) {
    throw parseError(`invalid YAML frontmatter: ${(err as Error).message}`, { field: 'data' });
  }
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) throw parseError('the YAML frontmatter must be a mapping', { field: 'data' });
  const f = meta as Record<string, unknown>;
  if (f.name === undefined) throw parseError('the frontmatter has no "name"', { field: 'data.name' });
  if (f.description === undefined || f.description === null || (typeof f.description === 'string' && !f.description.trim()))
    throw parseError('the frontmatter has no "description"', { field: 'data.description' });
  const name = checkName(f.name, 'name');
  const description = optionalText(f.description, 'description');
  return { name, description, allowedTools: allowedToolsOf(f, ''), tags: stringList(f.tags, 'tags', false), skillMd: text, ignoredFields: [] };
}

/** `search_web`, `searchWeb`, `Search Web` → `search-web`. */
export function kebabCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase();
}

function parseToolDefinition(o: Record<string, unknown>): Skill {
  if (typeof o.name !== 'string') checkName(o.name, 'data.name');
  const original = (o.name as string).trim();
  const name = checkName(kebabCase(original), 'data.name');
  const description = optionalText(o.description, 'data.description');
  const schema = o.inputSchema;
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) throw invalidArgument('data.inputSchema must be a JSON Schema object', { field: 'data.inputSchema' });
  const s = schema as Record<string, unknown>;
  const props = s.properties ?? {};
  if (props === null || typeof props !== 'object' || Array.isArray(props)) throw invalidArgument('data.inputSchema.properties must be an object', { field: 'data.inputSchema.properties' });
  const required = new Set(stringList(s.required, 'data.inputSchema.required', false));
  const lines = Object.entries(props as Record<string, unknown>).map(([param, def]) => {
    const d = def && typeof def === 'object' ? (def as Record<string, unknown>) : {};
    const type = typeof d.type === 'string' ? d.type : Array.isArray(d.type) ? d.type.join(' | ') : 'any';
    const text = typeof d.description === 'string' && d.description.trim() ? `: ${d.description.trim()}` : '';
    return `- \`${param}\` (${type}, ${required.has(param) ? 'required' : 'optional'})${text}`;
  });
  const body = [
    `# ${name}`,
    '',
    description,
    '',
    '## Parameters',
    '',
    lines.length ? lines.join('\n') : 'None.',
    '',
    '## Usage',
    '',
    `Wraps the tool \`${original}\`: call it with the parameters above (required ones must be given) when a task needs what the description says.`,
  ].join('\n');
  const meta = { name, description, allowedTools: [], tags: [] };
  return { ...meta, skillMd: renderSkillMd(meta, body), ignoredFields: Object.keys(o).filter((k) => !TOOL_FIELDS.has(k)) };
}

/** The frontmatter fields of a stored SKILL.md, for listings; a damaged one yields what it can. */
export function summaryOf(text: string): { description: string; tags: string[]; allowed_tools: string[] } {
  try {
    const s = parseSkillMd(text);
    return { description: s.description, tags: s.tags, allowed_tools: s.allowedTools };
  } catch {
    return { description: '', tags: [], allowed_tools: [] };
  }
}
