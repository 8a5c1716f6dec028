/** Prompts that show an agent how to use ctx well: recall first, save what was learned, explore a resource. */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

interface PromptDef {
  name: string;
  title: string;
  description: string;
  arguments: Array<{ name: string; description: string; required: boolean }>;
  text(args: Record<string, string>): string;
}

const DEFS: PromptDef[] = [
  {
    name: 'recall',
    title: 'Recall before answering',
    description: 'Answer a question from what ctx already holds: find, read, then answer citing the URIs.',
    arguments: [{ name: 'question', description: 'the question to answer', required: true }],
    text: (a) =>
      `Before answering, recall what is stored in ctx.\n` +
      `1. Call \`find\` with the question as the query (add \`target_uri\` if you know where it lives).\n` +
      `2. Read the most relevant hits with \`read\` (level 1 for directories first).\n` +
      `3. Answer using what you found and cite the ctx:// URIs you relied on. If nothing relevant is stored, say so and answer from general knowledge.\n\n` +
      `Question: ${a.question}`,
  },
  {
    name: 'save_learnings',
    title: 'Save what you learned',
    description: 'At the end of a task: store the durable facts, preferences and decisions as memories.',
    arguments: [
      { name: 'topic', description: 'what the conversation was about (optional)', required: false },
      { name: 'session_id', description: 'the ctx session to add to (optional)', required: false },
    ],
    text: (a) =>
      `Look back over this conversation${a.topic ? ` about ${a.topic}` : ''} and decide what should outlive it: the user's preferences, facts about their projects, decisions made and why, and procedures that worked.\n` +
      `Call \`remember\` with those as a short exchange of messages (user: what was said or asked; assistant: what was learned or decided)` +
      `${a.session_id ? `, with session_id "${a.session_id}"` : ''}. Leave out small talk and anything already stored (check with \`find\` first).`,
  },
  {
    name: 'explore_resource',
    title: 'Explore a resource',
    description: 'Get to know a document set or code repository in ctx before working with it.',
    arguments: [{ name: 'uri', description: 'the resource\'s ctx:// URI', required: true }],
    text: (a) =>
      `Explore ${a.uri} before working with it:\n` +
      `1. \`read\` it at level 1 for its overview, then \`tree\` it to two or three levels.\n` +
      `2. For code, \`code_outline\` the central files and \`code_expand\` what matters; for documents, \`read\` the key ones.\n` +
      `3. Use \`grep\` for exact names and \`find\` for concepts.\n` +
      `Then summarise its structure and the parts relevant to the task at hand.`,
  },
];

export const PROMPTS = DEFS.map(({ name, title, description, arguments: args }) => ({ name, title, description, arguments: args }));

export function getPrompt(name: string, args: Record<string, string>) {
  const def = DEFS.find((d) => d.name === name);
  if (!def) throw new McpError(ErrorCode.InvalidParams, `unknown prompt ${JSON.stringify(name)}; prompts/list names them`);
  for (const a of def.arguments) if (a.required && !args[a.name]) throw new McpError(ErrorCode.InvalidParams, `prompt ${name} needs the argument ${a.name}`);
  return { description: def.description, messages: [{ role: 'user' as const, content: { type: 'text' as const, text: def.text(args) } }] };
}
