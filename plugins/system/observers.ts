/**
 * Observer components (spec "Observer and health shapes"). Other plugins register components
 * (retrieval registers `vectordb` and `retrieval`) through the `observers` service.
 */
export interface ComponentStatus {
  name: string;
  is_healthy: boolean;
  has_errors: boolean;
  status: string;
}

export type ComponentProbe = () => Promise<ComponentStatus> | ComponentStatus;

export interface ObserverRegistry {
  register(name: string, probe: ComponentProbe): void;
  get(name: string): ComponentProbe | undefined;
  names(): string[];
}

export function createObserverRegistry(): ObserverRegistry {
  const probes = new Map<string, ComponentProbe>();
  return {
    register(name, probe) {
      probes.set(name, probe);
    },
    get: (name) => probes.get(name),
    names: () => [...probes.keys()],
  };
}

/** Renders rows as an aligned text table, the `status` field's format. */
export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}
