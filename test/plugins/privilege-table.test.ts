/** The privilege table of docs/plugins.md is generated from the code, and every built-in says why it holds what it holds. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { builtinPlugins } from '../../plugins/index.js';
import { PRIVILEGES, definePlugin } from '../../runtime/plugin.js';
import { PLUGINS_DOC, privilegeTable, withTable } from '../../scripts/privilege-table.js';

describe('privilege table', () => {
  it('docs/plugins.md holds the generated table (npm run docs:privileges writes it)', () => {
    const doc = fs.readFileSync(PLUGINS_DOC, 'utf8');
    expect(withTable(doc), 'docs/plugins.md privilege table is stale: run npm run docs:privileges').toBe(doc);
  });

  it('lists every privilege, and a changed reason changes the table', () => {
    const table = privilegeTable();
    for (const p of PRIVILEGES) expect(table).toContain(`| \`${p}\` |`);
    const other = builtinPlugins.map((d) => (d.name === 'admin' ? { ...d, privilegeReasons: { 'identity-admin': 'a different reason' } } : d));
    expect(privilegeTable(other)).not.toBe(table);
    expect(privilegeTable(other)).toContain('a different reason');
  });

  it('every built-in gives a reason for each privilege it declares', () => {
    for (const d of builtinPlugins) for (const p of d.privileges ?? []) expect(d.privilegeReasons?.[p], `${d.name}: ${p}`).toMatch(/\S/);
  });

  it('at most three built-ins keep unscoped-vfs', () => {
    const holders = builtinPlugins.filter((d) => d.privileges?.includes('unscoped-vfs')).map((d) => d.name);
    expect(holders.length, holders.join(', ')).toBeLessThanOrEqual(3);
  });

  it('a reason for a privilege the plugin does not declare is refused', () => {
    expect(() => definePlugin({ name: 'x', version: '1', privileges: [], privilegeReasons: { 'unscoped-vfs': 'why' }, setup() {} })).toThrow(/does not declare/);
  });
});
