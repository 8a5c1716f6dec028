/**
 * Words as find's `match_reason` sees them: which of the query's words a hit's text holds as whole
 * words. Kept apart from the search so the slim record cache (slim-records.ts) can store a text's
 * distinct words instead of the text, with the same answer as a scan of the text.
 */

/**
 * Lowercased Unicode words: what a reader calls a word, for explaining and planning (the index's
 * own tokenizer also emits identifier parts and CJK bigrams, which a whole-word check cannot find).
 */
export function words(text: string): string[] {
  return text.toLowerCase().normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? [];
}

const WORD_CHAR = /[\p{L}\p{N}\uD800-\uDFFF]/u;
function isWordChar(s: string, i: number): boolean {
  if (i < 0 || i >= s.length) return false;
  const c = s.charCodeAt(i);
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
  return WORD_CHAR.test(s[i]!);
}

/**
 * A hit's text as the matcher reads it: the whole text, or a record's `TermsIndex` (what the slim
 * record cache keeps instead of the text) with the URI and abstract it was made with.
 */
export type MatchText = { text: string } | (TermsIndex & { attrs: { uri: string }; abstract: string });

/** Whether `lower` holds `t` (letters and digits only) bounded by non-word characters. */
function hasWord(lower: string, t: string): boolean {
  for (let i = lower.indexOf(t); i >= 0; i = lower.indexOf(t, i + 1)) if (!isWordChar(lower, i - 1) && !isWordChar(lower, i + t.length)) return true;
  return false;
}

/**
 * Which of the query's terms a text contains as whole words: `indexOf` per term on the lowercased
 * text with a boundary check. Tokenizing every hit's whole text (1 KB+) to intersect term sets cost
 * ~25 µs per hit, and one Unicode-class regex with lookbehind was slower still.
 */
export function queryTermMatcher(query: string): (text: string | MatchText) => string[] {
  const terms = [...new Set(words(query))];
  if (!terms.length) return () => [];
  const spaced = terms.map((t) => ` ${t} `);
  return (input) => {
    if (typeof input !== 'string' && 'extra' in input) {
      let uri: string | undefined;
      let abstract: string | undefined;
      return terms.filter((t, i) => {
        if (input.extra.includes(spaced[i]!)) return true;
        if (input.absent.includes(spaced[i]!)) return false;
        return hasWord((uri ??= input.attrs.uri.toLowerCase()), t) || hasWord((abstract ??= input.abstract.toLowerCase()), t);
      });
    }
    const lower = (typeof input === 'string' ? input : input.text).toLowerCase();
    return terms.filter((t) => hasWord(lower, t));
  };
}

/** The distinct maximal runs of word characters of `text` lowercased (what `hasWord` delimits). */
function runs(text: string, into = new Set<string>()): Set<string> {
  const lower = text.toLowerCase();
  let start = -1;
  for (let i = 0; i <= lower.length; i++) {
    if (i < lower.length && isWordChar(lower, i)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      into.add(lower.slice(start, i));
      start = -1;
    }
  }
  return into;
}

const pack = (ws: string[]) => (ws.length ? ` ${ws.join(' ')} ` : ' ');

/**
 * The words of a record's `${uri} ${text}` as the match reason needs them, stored against what a
 * cached record keeps anyway (its URI and abstract): `extra`, the words the text has beyond
 * those two, and `absent`, the abstract's words the text lacks, each as ` w1 w2 … `. A query term
 * (letters and digits only) is a whole word of the text exactly when it is one of its maximal
 * runs of word characters, so: in `extra`, or in the URI or abstract and not in `absent`. An
 * extractive abstract is the text's own beginning, so `extra` is what follows it.
 */
export interface TermsIndex {
  extra: string;
  absent: string;
}

export function termsIndex(uri: string, text: string, abstract: string): TermsIndex {
  // Lowercasing is context-free across a space (the final-sigma rule stops there), so the URI's
  // words are the same alone as at the head of `${uri} ${text}`.
  const inText = runs(`${uri} ${text}`);
  const shown = runs(uri, runs(abstract));
  return { extra: pack([...inText].filter((w) => !shown.has(w))), absent: pack([...shown].filter((w) => !inText.has(w))) };
}
