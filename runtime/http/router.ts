/**
 * Method + path router. Static paths resolve with one Map lookup (the hot path: most routes are
 * static); parameterised paths walk a small segment trie. `{name}` matches one segment,
 * a trailing `{name*}` matches the rest of the path (one or more segments).
 */
export interface Match<T> {
  value: T;
  params: Record<string, string>;
}

interface Node<T> {
  statics: Map<string, Node<T>>;
  param?: { name: string; node: Node<T> };
  rest?: { name: string; byMethod: Map<string, T> };
  byMethod: Map<string, T>;
}

const newNode = <T>(): Node<T> => ({ statics: new Map(), byMethod: new Map() });

export class DuplicateRouteError extends Error {
  readonly code = 'CTX_DUPLICATE_ROUTE';
}

export class Router<T> {
  private readonly staticRoutes = new Map<string, Map<string, T>>();
  private readonly root: Node<T> = newNode();

  add(method: string, pattern: string, value: T, describe: (existing: T) => string): void {
    if (!pattern.startsWith('/')) throw new Error(`route pattern must start with '/': ${pattern}`);
    const segments = pattern.split('/').slice(1);
    const isStatic = segments.every((s) => !s.startsWith('{'));
    if (isStatic) {
      let byMethod = this.staticRoutes.get(pattern);
      if (!byMethod) this.staticRoutes.set(pattern, (byMethod = new Map()));
      const existing = byMethod.get(method);
      if (existing !== undefined) throw new DuplicateRouteError(`duplicate route ${method} ${pattern}: already registered by ${describe(existing)}`);
      byMethod.set(method, value);
      return;
    }
    let node = this.root;
    for (let i = 0; i < segments.length; i++) {
      const seg = segments[i]!;
      if (seg.startsWith('{') && seg.endsWith('*}')) {
        if (i !== segments.length - 1) throw new Error(`catch-all parameter must be last: ${pattern}`);
        const name = seg.slice(1, -2);
        node.rest ??= { name, byMethod: new Map() };
        if (node.rest.name !== name) throw new Error(`conflicting catch-all names at ${pattern}`);
        const existing = node.rest.byMethod.get(method);
        if (existing !== undefined) throw new DuplicateRouteError(`duplicate route ${method} ${pattern}: already registered by ${describe(existing)}`);
        node.rest.byMethod.set(method, value);
        return;
      }
      if (seg.startsWith('{')) {
        const name = seg.slice(1, -1);
        node.param ??= { name, node: newNode() };
        if (node.param.name !== name) throw new Error(`conflicting parameter names {${node.param.name}} and {${name}} in ${pattern}`);
        node = node.param.node;
      } else {
        let next = node.statics.get(seg);
        if (!next) node.statics.set(seg, (next = newNode()));
        node = next;
      }
    }
    const existing = node.byMethod.get(method);
    if (existing !== undefined) throw new DuplicateRouteError(`duplicate route ${method} ${pattern}: already registered by ${describe(existing)}`);
    node.byMethod.set(method, value);
  }

  /** Returns the match, or the list of methods allowed on the path (for 405), or null (404). */
  find(method: string, path: string): Match<T> | { allowed: string[] } | null {
    const byMethod = this.staticRoutes.get(path);
    if (byMethod) {
      const value = byMethod.get(method);
      if (value !== undefined) return { value, params: {} };
    }
    const params: Record<string, string> = {};
    const found = this.walk(this.root, path.split('/').slice(1), 0, params);
    const methods = found?.get(method);
    if (methods !== undefined) return { value: methods, params };
    const allowed = new Set<string>([...(byMethod?.keys() ?? []), ...(found?.keys() ?? [])]);
    return allowed.size > 0 ? { allowed: [...allowed] } : null;
  }

  private walk(node: Node<T>, segs: string[], i: number, params: Record<string, string>): Map<string, T> | undefined {
    if (i === segs.length) return node.byMethod.size > 0 ? node.byMethod : undefined;
    const seg = segs[i]!;
    const next = node.statics.get(seg);
    if (next) {
      const r = this.walk(next, segs, i + 1, params);
      if (r) return r;
    }
    if (node.param && seg !== '') {
      const r = this.walk(node.param.node, segs, i + 1, params);
      if (r) {
        params[node.param.name] = decodeSegment(seg);
        return r;
      }
    }
    if (node.rest && seg !== '') {
      params[node.rest.name] = segs.slice(i).map(decodeSegment).join('/');
      return node.rest.byMethod;
    }
    return undefined;
  }
}

function decodeSegment(seg: string): string {
  try {
    return decodeURIComponent(seg);
  } catch {
    return seg;
  }
}
