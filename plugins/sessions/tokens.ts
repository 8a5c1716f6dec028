/**
 * Token counts with a real BPE tokenizer (o200k_base, the encoding of current OpenAI models) from
 * the `gpt-tokenizer` package: budgets and `pending_tokens` measure what a model would be sent,
 * not characters/4 (which undercounts code and overcounts prose).
 */
import { createRequire } from 'node:module';
import type { Message, Part } from './types.js';

type Count = (text: string, opts: { disallowedSpecial: Set<string> }) => number;
// Loaded on the first count, not at start-up: the o200k tables cost ~250 ms of start-up and tens of
// MB of heap in a server that may never see a session message (bench/RESULTS.md, start-up).
// The package's CommonJS build, so the first count stays synchronous.
let count: Count | undefined;
const load = (): Count => (count = (createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as { countTokens: Count }).countTokens);

// User text may contain special-token spellings such as `<|endoftext|>`; they are counted as the
// ordinary text they are here instead of making the tokenizer throw.
const PLAIN = { disallowedSpecial: new Set<string>() };

export function countTokens(text: string): number {
  return text === '' ? 0 : (count ?? load())(text, PLAIN);
}

/**
 * Characters a BPE vocabulary tends to spend a token or more on: CJK ideographs, kana, hangul and
 * full-width forms weigh 1.5, other astral characters (emoji) 2, everything else 0 (its BPE count
 * stands). The first two weights are the ones the reference product budgets with.
 */
function wideWeight(cp: number): number {
  if (
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x20000 && cp <= 0x2ebef) ||
    (cp >= 0x3000 && cp <= 0x30ff) ||
    (cp >= 0x31f0 && cp <= 0x31ff) ||
    (cp >= 0xac00 && cp <= 0xd7af) ||
    (cp >= 0x1100 && cp <= 0x11ff) ||
    (cp >= 0x3130 && cp <= 0x318f) ||
    (cp >= 0xff00 && cp <= 0xffef)
  )
    return 1.5;
  return cp > 0xffff ? 2 : 0;
}

/** The floor a text's wide characters put under its token count (see wideWeight), rounded up. */
export function wideCharTokens(text: string): number {
  let weight = 0;
  // Most text is ASCII: skip the per-character walk when no code unit can be wide.
  if (!/[^\u0000-\u2fff]/.test(text)) return 0;
  for (const ch of text) weight += wideWeight(ch.codePointAt(0)!);
  return Math.ceil(weight);
}

/**
 * Tokens a text costs in a budget: its BPE count, but never below the floor of its CJK and astral
 * characters. BPE alone undercounts CJK against other models' tokenizers (o200k merges common
 * ideograph pairs: 0.5-0.7 tokens a character), and a budget that undercounts overflows a context
 * window; latin text and code keep their exact BPE count.
 */
export function budgetTokens(text: string): number {
  if (text === '') return 0;
  return Math.max(countTokens(text), wideCharTokens(text));
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

/**
 * Tokens of one message (`pending_tokens`, context budgets): its parts at their budget cost plus a
 * small per-message overhead (role and separators, as chat formats add).
 */
export function messageTokens(m: Pick<Message, 'parts'>): number {
  let n = 4;
  for (const p of m.parts) n += budgetTokens(partText(p));
  return n;
}
