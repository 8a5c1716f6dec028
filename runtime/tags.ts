/** Tag checks shared by every route that takes `tags` (fs set_tags, content writes, find filters). */
import { invalidArgument } from './errors.js';

const TAG = /^[^=\x00-\x1f\x7f]+=[^\x00-\x1f\x7f]*$/;

/** Validates a list of `k=v` tags (non-empty key, at most 512 characters, no surrounding spaces). */
export function checkTags(tags: unknown, field = 'tags'): string[] {
  if (!Array.isArray(tags)) throw invalidArgument(`${field} must be an array of k=v strings`, { field });
  tags.forEach((t, i) => {
    if (typeof t !== 'string' || !TAG.test(t) || t.length > 512 || t.trim() !== t)
      throw invalidArgument(`${field}[${i}] must be a k=v string (non-empty key, at most 512 characters), got ${JSON.stringify(t)?.slice(0, 100)}`, { field: `${field}[${i}]` });
  });
  return tags as string[];
}

/** `checkTags` for an optional field. */
export function checkOptionalTags(tags: unknown, field = 'tags'): string[] | undefined {
  return tags === undefined ? undefined : checkTags(tags, field);
}
