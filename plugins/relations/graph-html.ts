/**
 * The self-contained HTML relation graph: data, styles and a small force layout inline, drawn as SVG.
 * No external resource of any kind, and a Content-Security-Policy that forbids fetching one, so the
 * file works offline and from any origin. Labels go in through textContent (never innerHTML) and the
 * data block is JSON with `<`, `>`, `&` and line separators escaped, so stored names cannot inject.
 * When drawn, `<html>` carries `data-nodes`, `data-edges` and `data-rendered="true"` (the browser
 * test reads them back).
 */

export interface GraphNode {
  id: number;
  uri: string;
  label: string;
  /** Index into `spaces`, or -1 for a target outside every merged space. */
  space: number;
  /** False when the URI no longer exists (a dangling relation target). */
  exists: boolean;
  isDir: boolean;
}

export interface GraphEdge {
  source: number;
  target: number;
  reason: string;
}

export interface GraphData {
  title: string;
  generated_at: string;
  spaces: string[];
  nodes: GraphNode[];
  edges: GraphEdge[];
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const scriptJson = (v: unknown) =>
  JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const STYLE = `
html,body{margin:0;height:100%;background:#fbfbfd;font:13px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330}
header{position:fixed;top:0;left:0;right:0;padding:8px 14px;background:rgba(255,255,255,.92);border-bottom:1px solid #e3e6ee;z-index:2}
header h1{font-size:15px;margin:0 0 2px}
header .meta{color:#5b6475}
#legend{display:flex;flex-wrap:wrap;gap:10px;margin-top:4px}
#legend span{display:inline-flex;align-items:center;gap:5px}
#legend i{width:11px;height:11px;border-radius:50%;display:inline-block}
svg{position:absolute;top:0;left:0;width:100%;height:100%}
line.edge{stroke:#9aa3b5;stroke-width:1.4}
g.node circle{stroke:#fff;stroke-width:2;cursor:grab}
g.node.missing circle{fill:#fff !important;stroke:#c0392b;stroke-dasharray:3 2}
g.node text{font-size:11px;fill:#27303f;paint-order:stroke;stroke:#fbfbfd;stroke-width:3px;pointer-events:none}
g.node.dir circle{stroke:#27303f}
#empty{position:absolute;top:45%;width:100%;text-align:center;color:#5b6475;font-size:16px}
`;

/** Runs in the browser. Deterministic layout: fixed start positions, fixed iteration count. */
const SCRIPT = `
(function(){
  var data = JSON.parse(document.getElementById('ctx-graph-data').textContent);
  var NS = 'http://www.w3.org/2000/svg';
  var palette = ['#3b82f6','#10b981','#f59e0b','#8b5cf6','#ef4444','#14b8a6','#ec4899','#84cc16'];
  var colorOf = function(space){ return space < 0 ? '#94a3b8' : palette[space % palette.length]; };
  var nodes = data.nodes, edges = data.edges, n = nodes.length;
  var legend = document.getElementById('legend');
  data.spaces.forEach(function(s, i){
    var span = document.createElement('span'), dot = document.createElement('i');
    dot.style.background = colorOf(i); span.appendChild(dot); span.appendChild(document.createTextNode(s)); legend.appendChild(span);
  });
  var extra = function(label, style){
    var span = document.createElement('span'), dot = document.createElement('i');
    dot.style.cssText = style; span.appendChild(dot); span.appendChild(document.createTextNode(label)); legend.appendChild(span);
  };
  if (nodes.some(function(nd){ return nd.space < 0; })) extra('outside these spaces', 'background:' + colorOf(-1));
  if (nodes.some(function(nd){ return !nd.exists; })) extra('missing (removed target)', 'border:1.5px dashed #c0392b;width:9px;height:9px');
  document.getElementById('counts').textContent = n + ' nodes, ' + edges.length + ' relations';
  var svg = document.getElementById('graph');
  if (n === 0) {
    document.getElementById('empty').textContent = 'No relations in these spaces.';
  }
  // Start on a golden-angle spiral: spread out, and the same picture every time.
  var x = new Float64Array(n), y = new Float64Array(n), vx = new Float64Array(n), vy = new Float64Array(n);
  for (var i = 0; i < n; i++) { var r = 30 * Math.sqrt(i + 1), a = i * 2.399963; x[i] = r * Math.cos(a); y[i] = r * Math.sin(a); }
  var iterations = n <= 300 ? 300 : Math.max(40, Math.floor(2.7e7 / (n * n)));
  var linkLen = 90, repulse = 2600, gravity = 0.012;
  for (var it = 0; it < iterations; it++) {
    var cool = 1 - it / iterations;
    for (var p = 0; p < n; p++) for (var q = p + 1; q < n; q++) {
      var dx = x[p] - x[q], dy = y[p] - y[q], d2 = dx * dx + dy * dy + 0.01, f = repulse / d2, d = Math.sqrt(d2);
      vx[p] += f * dx / d; vy[p] += f * dy / d; vx[q] -= f * dx / d; vy[q] -= f * dy / d;
    }
    for (var e = 0; e < edges.length; e++) {
      var s = edges[e].source, t = edges[e].target; if (s === t) continue;
      var ex = x[t] - x[s], ey = y[t] - y[s], el = Math.sqrt(ex * ex + ey * ey) + 0.01, k = (el - linkLen) * 0.05;
      vx[s] += k * ex / el; vy[s] += k * ey / el; vx[t] -= k * ex / el; vy[t] -= k * ey / el;
    }
    for (var m = 0; m < n; m++) {
      vx[m] -= x[m] * gravity; vy[m] -= y[m] * gravity;
      var step = Math.min(1, 12 * cool / (Math.sqrt(vx[m] * vx[m] + vy[m] * vy[m]) + 1e-9));
      x[m] += vx[m] * step; y[m] += vy[m] * step; vx[m] *= 0.5; vy[m] *= 0.5;
    }
  }
  var minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (var b = 0; b < n; b++) { minX = Math.min(minX, x[b]); maxX = Math.max(maxX, x[b]); minY = Math.min(minY, y[b]); maxY = Math.max(maxY, y[b]); }
  if (n === 0) { minX = minY = -100; maxX = maxY = 100; }
  var pad = 80;
  svg.setAttribute('viewBox', (minX - pad) + ' ' + (minY - pad - 40) + ' ' + (maxX - minX + 2 * pad) + ' ' + (maxY - minY + 2 * pad + 40));
  var defs = document.createElementNS(NS, 'defs'), marker = document.createElementNS(NS, 'marker');
  marker.setAttribute('id', 'arrow'); marker.setAttribute('viewBox', '0 0 10 10'); marker.setAttribute('refX', '19'); marker.setAttribute('refY', '5');
  marker.setAttribute('markerWidth', '7'); marker.setAttribute('markerHeight', '7'); marker.setAttribute('orient', 'auto-start-reverse');
  var tip = document.createElementNS(NS, 'path'); tip.setAttribute('d', 'M0,0 L10,5 L0,10 z'); tip.setAttribute('fill', '#9aa3b5');
  marker.appendChild(tip); defs.appendChild(marker); svg.appendChild(defs);
  var lines = edges.map(function(ed){
    var l = document.createElementNS(NS, 'line'); l.setAttribute('class', 'edge'); l.setAttribute('marker-end', 'url(#arrow)');
    var title = document.createElementNS(NS, 'title'); title.textContent = nodes[ed.source].uri + ' -> ' + nodes[ed.target].uri + (ed.reason ? '\\n' + ed.reason : '');
    l.appendChild(title); svg.appendChild(l); return l;
  });
  var groups = nodes.map(function(nd, idx){
    var g = document.createElementNS(NS, 'g');
    g.setAttribute('class', 'node' + (nd.exists ? '' : ' missing') + (nd.isDir ? ' dir' : ''));
    g.setAttribute('data-uri', nd.uri);
    var c = document.createElementNS(NS, 'circle'); c.setAttribute('r', nd.isDir ? '11' : '8'); c.setAttribute('fill', colorOf(nd.space));
    var title = document.createElementNS(NS, 'title'); title.textContent = nd.uri + (nd.exists ? '' : ' (missing)'); c.appendChild(title);
    var text = document.createElementNS(NS, 'text'); text.setAttribute('x', '14'); text.setAttribute('y', '4'); text.textContent = nd.label;
    g.appendChild(c); g.appendChild(text); svg.appendChild(g);
    g.addEventListener('pointerdown', function(ev){ drag = { idx: idx, id: ev.pointerId }; svg.setPointerCapture(ev.pointerId); });
    return g;
  });
  function place(){
    for (var i = 0; i < n; i++) groups[i].setAttribute('transform', 'translate(' + x[i].toFixed(1) + ',' + y[i].toFixed(1) + ')');
    for (var j = 0; j < edges.length; j++) {
      var l = lines[j], s = edges[j].source, t = edges[j].target;
      l.setAttribute('x1', x[s].toFixed(1)); l.setAttribute('y1', y[s].toFixed(1)); l.setAttribute('x2', x[t].toFixed(1)); l.setAttribute('y2', y[t].toFixed(1));
    }
  }
  var drag = null;
  svg.addEventListener('pointermove', function(ev){
    if (!drag) return;
    var pt = svg.createSVGPoint(); pt.x = ev.clientX; pt.y = ev.clientY;
    var loc = pt.matrixTransform(svg.getScreenCTM().inverse()); x[drag.idx] = loc.x; y[drag.idx] = loc.y; place();
  });
  svg.addEventListener('pointerup', function(){ drag = null; });
  place();
  var root = document.documentElement;
  root.setAttribute('data-nodes', String(n)); root.setAttribute('data-edges', String(edges.length)); root.setAttribute('data-rendered', 'true');
})();
`;

export function renderGraphHtml(data: GraphData): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(data.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>${escapeHtml(data.title)}</h1><div class="meta"><span id="counts"></span> · generated ${escapeHtml(data.generated_at)}</div><div id="legend"></div></header>
<svg id="graph" role="img" aria-label="relation graph"></svg>
<div id="empty"></div>
<script type="application/json" id="ctx-graph-data">${scriptJson(data)}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
