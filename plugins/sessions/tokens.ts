/**
 * Token counts with a real BPE tokenizer (o200k_base, the encoding of current OpenAI models) from
 * the `gpt-tokenizer` package: budgets and `pending_tokens` measure what a model would be sent,
 * not characters/4 (which undercounts code and overcounts prose).
 */
import { countTokens as count } from 'gpt-tokenizer/encoding/o200k_base';
import type { Message, Part } from './types.js';

// User text may contain special-token spellings such as `<|endoftext|>`; they are counted as the
// ordinary text they are here instead of making the tokenizer throw.
const PLAIN = { disallowedSpecial: new Set<string>() };

export function countTokens(text: string): number {
  return text === '' ? 0 : count(text, PLAIN);
}

/** The text a part contributes to a prompt. */
export function partText(p: Part): string {
  switch (p.type) {
    case 'text':
      return p.text;
    case 'context':
      return `${p.uri} ${p.abstract}`;
    case 'tool':
      return `${p.tool_name} ${p.tool_input ? JSON.stringify(p.tool_input) : ''} ${p.tool_output}`;
  }
}

/** Tokens of one message: its parts plus a small per-message overhead (role and separators, as chat formats add). */
export function messageTokens(m: Pick<Message, 'parts'>): number {
  let n = 4;
  for (const p of m.parts) n += countTokens(partText(p));
  return n;
}
