/**
 * The text extension allowlist of spec Part 2 ("Limits"): content `create` accepts only these, and
 * memory files keep them in every mode. Content writes, fs moves and the relation graph all apply
 * it, so it lives here once.
 */
export const TEXT_EXTENSIONS = ['.md', '.txt', '.json', '.yaml', '.yml', '.toml', '.py', '.js', '.ts'] as const;

/** Lower-cased extension with its dot; '' for none (a leading dot alone, as in `.env`, is no extension). */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot).toLowerCase();
}

export function hasTextExtension(name: string): boolean {
  return (TEXT_EXTENSIONS as readonly string[]).includes(extensionOf(name));
}
