// Summarizes a schemathesis NDJSON event log (scripts/fuzz-openapi.sh) per operation: how many
// schema-valid requests the server rejected, statuses the document does not list, and server
// errors (a 503 the operation documents is not one: the bot or gateway is simply not configured).
// Usage: node scripts/fuzz-openapi-summary.mjs events.ndjson docs/openapi.json [--json]
import fs from 'node:fs';

const [eventsFile, docFile] = process.argv.slice(2);
const doc = JSON.parse(fs.readFileSync(docFile, 'utf8'));
const documented = new Map();
for (const [p, item] of Object.entries(doc.paths))
  for (const [m, op] of Object.entries(item)) documented.set(`${m.toUpperCase()} ${p}`, new Set(Object.keys(op.responses ?? {})));

const ops = new Map();
const get = (label) => {
  if (!ops.has(label)) ops.set(label, { label, positive: 0, rejected: 0, rejectedStatuses: new Map(), undocumented: new Map(), serverErrors: new Map(), documented503: 0, requests: 0 });
  return ops.get(label);
};
const bump = (m, k) => m.set(k, (m.get(k) ?? 0) + 1);

for (const line of fs.readFileSync(eventsFile, 'utf8').split('\n')) {
  if (!line) continue;
  const rec = JSON.parse(line).ScenarioFinished?.recorder;
  if (!rec?.checks) continue;
  const op = get(rec.label);
  for (const [id, checks] of Object.entries(rec.checks)) {
    const status = rec.interactions?.[id]?.response?.status_code;
    if (status === undefined) continue;
    op.requests++;
    const mode = rec.cases?.[id]?.value?.meta?.generation?.mode;
    if (mode === 'positive') op.positive++;
    for (const c of checks) {
      if (c.status === 'success') continue;
      if (c.name === 'positive_data_acceptance') {
        op.rejected++;
        bump(op.rejectedStatuses, status);
      } else if (c.name === 'status_code_conformance') bump(op.undocumented, status);
    }
    if (status >= 500) {
      if (status === 503 && documented.get(rec.label)?.has('503')) op.documented503++;
      else bump(op.serverErrors, status);
    }
  }
}

const list = [...ops.values()].sort((a, b) => a.label.localeCompare(b.label));
const fmt = (m) => [...m.entries()].map(([s, n]) => `${s}×${n}`).join(' ');
const mostlyRejected = list.filter((o) => o.positive > 0 && o.rejected / o.positive > 0.5);
const undocumented = list.filter((o) => o.undocumented.size > 0);
const serverErrors = list.filter((o) => o.serverErrors.size > 0);

if (process.argv.includes('--json')) {
  const plain = (o) => ({ ...o, rejectedStatuses: Object.fromEntries(o.rejectedStatuses), undocumented: Object.fromEntries(o.undocumented), serverErrors: Object.fromEntries(o.serverErrors) });
  console.log(JSON.stringify(list.map(plain), null, 2));
} else {
  console.log(`\n[fuzz] operations whose schema-valid requests are mostly rejected (${mostlyRejected.length}):`);
  for (const o of mostlyRejected) console.log(`  ${o.label}: ${o.rejected}/${o.positive} rejected (${fmt(o.rejectedStatuses)})`);
  console.log(`[fuzz] undocumented status codes (${undocumented.reduce((n, o) => n + o.undocumented.size, 0)} on ${undocumented.length} operations):`);
  for (const o of undocumented) console.log(`  ${o.label}: ${fmt(o.undocumented)}`);
  console.log(`[fuzz] server errors other than documented 503s (${serverErrors.length} operations):`);
  for (const o of serverErrors) console.log(`  ${o.label}: ${fmt(o.serverErrors)}`);
  const tested = list.filter((o) => o.requests > 0).length;
  const rejectedTotal = list.reduce((n, o) => n + o.rejected, 0);
  const positiveTotal = list.reduce((n, o) => n + o.positive, 0);
  console.log(
    `[fuzz] summary: ${tested} operations tested, ${list.reduce((n, o) => n + o.requests, 0)} requests; ` +
      `${mostlyRejected.length} mostly-rejected operations (${rejectedTotal}/${positiveTotal} valid requests rejected); ` +
      `${undocumented.reduce((n, o) => n + o.undocumented.size, 0)} undocumented statuses; ` +
      `${serverErrors.reduce((n, o) => n + [...o.serverErrors.values()].reduce((a, b) => a + b, 0), 0)} server errors; ` +
      `${list.reduce((n, o) => n + o.documented503, 0)} documented 503s`,
  );
}
process.exitCode = undocumented.length || serverErrors.length ? 1 : 0;
