// topoplace web console: one page, five views (#/map, #/allocations, #/job/<id>, #/links,
// #/capacity),
// drawn from the daemon's /api/v1 documents and refreshed by its event stream.
// Every name shown comes from a fabric file, an agent report or a client: it is only ever
// set as text (textContent), never parsed as markup.
'use strict';

const state = {
  view: null,         // the route being shown
  snapshot: null,     // the last topoplace.console.snapshot/v1
  map: null,          // the cluster map's layout and camera
  refreshTimer: null,
  renders: 0,
  lastEvent: 0,
};
// What tests and operators' scripts may read.
window.topoplaceConsole = state;

// ---- small DOM helpers ---------------------------------------------------------------

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key.startsWith('data-')) node.dataset[key.slice(5)] = value;
    else node[key] = value;
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function table(headers, rows, options = {}) {
  const head = el('tr', {}, ...headers.map((h) => el('th', {class: numeric(h) ? 'num' : ''}, h)));
  const body = rows.map((cells) => el('tr', {}, ...cells.map((c, i) =>
    el('td', {class: numeric(headers[i]) ? 'num' : ''}, c))));
  return el('table', {id: options.id || ''}, el('thead', {}, head), el('tbody', {}, ...body));
}

const NUMERIC = new Set(['GPUs', 'Hosts', 'Priority', 'Age', 'TTL', 'Bytes', 'Load', 'Tier',
                         'Rank', 'GPU', 'Port', 'Per second', 'rx_errors', 'tx_discards',
                         'ecn_marked', 'cnp_sent', 'link_downs', 'tx_bytes']);
function numeric(header) { return NUMERIC.has(header); }

// Replaces what the view shows; absent parts (null) are left out.
function setView(...parts) {
  document.getElementById('view').replaceChildren(...parts.filter((p) => p !== null));
}

// A table, or a note saying there is nothing to list.
function tableOr(note, headers, rows, options) {
  return rows.length ? table(headers, rows, options) : el('p', {class: 'muted', id: (options || {}).id || ''}, note);
}

function stateText(value) { return el('span', {class: 'state-' + value}, value); }
function jobLink(id, label) { return el('a', {href: '#/job/' + encodeURIComponent(id)}, label || id); }

function formatBytes(bytes) {
  if (bytes === null || bytes === undefined) return '';
  const units = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
  let value = Number(bytes), unit = 0;
  while (value >= 1000 && unit < units.length - 1) { value /= 1000; unit++; }
  return value.toFixed(value < 10 && unit > 0 ? 2 : 0) + ' ' + units[unit];
}
function formatShare(share) {
  return share === null || share === undefined ? '' : Math.round(share * 100) + ' %';
}
function formatSeconds(s) {
  if (s === null || s === undefined) return '';
  if (s < 120) return s + ' s';
  if (s < 7200) return Math.round(s / 60) + ' min';
  return (s / 3600).toFixed(1) + ' h';
}
function formatTime(ms) { return ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 19) : ''; }

async function fetchJson(path) {
  const response = await fetch(path, {credentials: 'same-origin', cache: 'no-store'});
  const body = await response.json().catch(() => ({error: 'HTTP ' + response.status}));
  if (!response.ok) throw new Error(body.error || 'HTTP ' + response.status);
  return body;
}

// ---- routing and live updates --------------------------------------------------------

function route() {
  const hash = location.hash || '#/map';
  const [, name, arg] = hash.match(/^#\/([a-z]+)(?:\/(.*))?$/) || [null, 'map', null];
  return {name, arg: arg ? decodeURIComponent(arg) : null};
}

async function show() {
  const r = route();
  state.view = r;
  for (const a of document.querySelectorAll('header nav a')) {
    a.classList.toggle('active', a.dataset.view === r.name);
  }
  const views = {map: showMap, allocations: showAllocations, job: showJob, links: showLinks,
                 capacity: showCapacity};
  const view = views[r.name] || showMap;
  try {
    await view(r.arg);
  } catch (error) {
    setView(el('p', {class: 'error'}, 'Could not load: ' + error.message));
  }
  state.renders++;
  document.body.dataset.renders = state.renders;
}

function scheduleRefresh() {
  clearTimeout(state.refreshTimer);
  state.refreshTimer = setTimeout(() => refresh(), 100);
}

async function refresh() {
  const r = state.view;
  if (r && r.name === 'map' && state.map) return refreshMap();
  if (r && r.name === 'allocations') return refreshAllocations();
  return show();
}

function connectEvents() {
  const live = document.getElementById('live');
  const events = new EventSource('/api/v1/events');
  events.addEventListener('hello', () => { live.textContent = 'live'; live.classList.add('on'); });
  for (const topic of ['allocations', 'health', 'resync']) {
    events.addEventListener(topic, (e) => {
      state.lastEvent = JSON.parse(e.data).seq;
      scheduleRefresh();
    });
  }
  events.onerror = () => { live.textContent = 'reconnecting'; live.classList.remove('on'); };
}

// ---- allocations ---------------------------------------------------------------------

function allocationRows(list, filter) {
  const needle = filter.trim().toLowerCase();
  return list
    .filter((a) => !needle || [a.id, a.external_id, a.state, a.job_spec, a.policy]
      .some((v) => String(v).toLowerCase().includes(needle)))
    .map((a) => [jobLink(a.id), stateText(a.state), a.external_id, String(a.gpus),
                 String(a.hosts), String(a.priority), formatSeconds(a.age_seconds),
                 formatSeconds(a.ttl_seconds), a.job_spec]);
}

async function showAllocations() {
  const filter = el('input', {id: 'allocation-filter', type: 'search',
                              placeholder: 'filter by id, external id, state, spec'});
  const holder = el('div', {id: 'allocations-table'});
  filter.addEventListener('input', () => refreshAllocations());
  setView(el('h1', {}, 'Allocations'), el('div', {class: 'toolbar'}, filter), holder);
  await refreshAllocations();
}

async function refreshAllocations() {
  const doc = await fetchJson('/api/v1/allocations');
  const filter = document.getElementById('allocation-filter');
  const holder = document.getElementById('allocations-table');
  if (!filter || !holder) return;
  const rows = allocationRows(doc.allocations, filter.value);
  holder.replaceChildren(
    el('p', {class: 'muted'}, rows.length + ' of ' + doc.allocations.length + ' live allocations'),
    table(['Allocation', 'State', 'External id', 'GPUs', 'Hosts', 'Priority', 'Age', 'TTL', 'Job'],
          rows, {id: 'allocations'}));
}

// ---- job -----------------------------------------------------------------------------

async function showJob(id) {
  const doc = await fetchJson('/api/v1/jobs/' + encodeURIComponent(id));
  const a = doc.allocation;
  const card = (label, value) => el('div', {class: 'card'}, el('b', {}, value), label);
  const tiers = Object.entries(doc.bytes_per_tier || {});
  const ranks = doc.ranks || [];
  const shownRanks = ranks.slice(0, 512);
  setView(
    el('h1', {}, 'Job ', el('span', {id: 'job-id'}, a.id),
       a.external_id ? el('span', {class: 'muted', id: 'job-external-id'}, '  ' + a.external_id) : null),
    el('div', {class: 'cards'},
       card('state', stateText(a.state)), card('GPUs', String(a.gpus)), card('hosts', String(a.hosts)),
       card('priority', String(a.priority)), card('policy', a.policy),
       card('age', formatSeconds(a.age_seconds))),
    el('p', {}, el('span', {class: 'muted'}, 'spec '), a.job_spec),
    doc.how ? el('p', {}, el('span', {class: 'muted'}, 'placed: '), doc.how) : null,
    doc.predicted ? el('p', {id: 'job-predicted'}, el('span', {class: 'muted'}, 'predicted: '),
                       doc.predicted.step_seconds.toPrecision(4) + ' s/iteration, slowdown ' +
                       doc.predicted.slowdown.toFixed(2) + 'x against the compact reference') : null,
    el('h2', {}, 'Bytes per iteration by tier'),
    table(['Tier', 'Bytes'], tiers.map(([tier, bytes]) => [tier, formatBytes(bytes)])),
    el('h2', {}, 'Hosts (' + doc.hosts.length + ')'),
    table(['Host', 'GPUs'], doc.hosts.map((h) => [h.name, h.gpus.join(' ')]), {id: 'job-hosts'}),
    el('h2', {}, 'Switches its traffic crosses (' + doc.switches.length + ')'),
    table(['Switch', 'Tier', 'Health', 'Load'],
          doc.switches.map((s) => [s.name, String(s.tier), stateText(s.health),
                                   formatShare(s.uplink_load)]), {id: 'job-switches'}),
    el('h2', {}, 'Links its traffic crosses (' + doc.links.length + ')'),
    table(['Link', 'State', 'Health', 'Reason', 'Load', 'Bytes', 'Recent events'],
          doc.links.map((l) => [l.name, stateText(l.state), stateText(l.health), l.reason,
                                formatShare(l.uplink_load), formatBytes(l.plan_bytes),
                                l.events.map((e) => formatTime(e.at_unix_ms) + ' ' + e.from +
                                             ' -> ' + e.to + ' (' + e.reason + ')').join('; ')]),
          {id: 'job-links'}),
    el('h2', {}, 'Ranks (' + ranks.length + ')'),
    ranks.length > shownRanks.length
      ? el('p', {class: 'muted'}, 'first ' + shownRanks.length + ' of ' + ranks.length) : null,
    table(['Rank', 'Host', 'GPU', 'NIC'],
          shownRanks.map((r) => [String(r.rank), r.host, String(r.gpu), r.nic]), {id: 'job-ranks'}));
}

// ---- links and switches --------------------------------------------------------------

async function showLinks() {
  const doc = await fetchJson('/api/v1/links');
  setView(
    el('h1', {}, 'Links and switches'),
    el('h2', {}, 'Links not healthy (' + doc.unhealthy.length + ')'),
    tableOr('Every link is healthy.', ['Link', 'State', 'Health', 'Reason', 'Since', 'Allocations it touches'],
          doc.unhealthy.map((l) => [l.name, stateText(l.state), stateText(l.health), l.reason,
                                    formatTime(l.since_unix_ms),
                                    el('span', {}, ...l.allocations.flatMap((a, i) =>
                                      [i ? ', ' : '', jobLink(a.id, a.external_id || a.id)]))]),
          {id: 'unhealthy-links'}),
    el('h2', {}, 'Health events'),
    tableOr('No health change recorded.', ['Time', 'Link', 'From', 'To', 'Reason'],
          doc.events.map((e) => [formatTime(e.at_unix_ms), e.link, stateText(e.from),
                                 stateText(e.to), e.reason]), {id: 'health-events'}),
    el('h2', {}, 'Counter rates (newest per port and counter)'),
    tableOr('No counter rates reported.', ['Endpoint', 'Counter', 'Per second', 'Time'],
          doc.counter_rates.map((r) => [r.endpoint, r.counter, r.per_second.toFixed(2),
                                        formatTime(r.at_unix_ms)])),
    el('h2', {}, 'Port counters (newest reading)'),
    tableOr('No port counters reported.', ['Endpoint', 'Port', 'Peer', 'rx_errors', 'tx_discards', 'ecn_marked', 'cnp_sent',
           'link_downs', 'tx_bytes', 'Time'],
          doc.port_counters.map((c) => [c.endpoint, String(c.port), c.peer, String(c.rx_errors),
                                        String(c.tx_discards), String(c.ecn_marked),
                                        String(c.cnp_sent), String(c.link_downs),
                                        formatBytes(c.tx_bytes), formatTime(c.at_unix_ms)])));
}

// ---- capacity ------------------------------------------------------------------------
// What is free in what shape: per level the largest whole-host job one domain takes, how
// many domains take a job of each size now, every domain of the smallest level coloured by
// its free share, and the latest refusals for want of room with their words.

const LEVEL_NAMES = {nvlink_domain: 'NVLink domain', block: 'Block', pod: 'Pod', cluster: 'Cluster'};

function freeShareClass(free, all) {
  if (!all || free === 0) return 'free-none';
  if (free === all) return 'free-all';
  return free * 2 >= all ? 'free-most' : 'free-some';
}

async function showCapacity() {
  const doc = await fetchJson('/api/v1/capacity');
  const levels = doc.levels.map((l) => l.level);
  const smallest = doc.levels[0];
  setView(
    el('h1', {}, 'Capacity'),
    el('h2', {}, 'Largest job one domain takes now'),
    table(['Level', 'Hosts', 'GPUs', 'Domains with a free host'],
          doc.levels.map((l) => [LEVEL_NAMES[l.level] || l.level, String(l.largest_hosts),
                                 String(l.largest_gpus),
                                 l.domains.filter((d) => d.free_hosts > 0).length + ' of ' +
                                   l.domains.length]), {id: 'capacity-levels'}),
    el('h2', {}, 'Job sizes that fit now (domains that take one, per level)'),
    table(['Hosts', 'GPUs', ...levels.map((l) => LEVEL_NAMES[l] || l)],
          doc.fits.map((f) => [String(f.hosts), String(f.gpus),
                               ...levels.map((l) => String(f.domains[l]))]), {id: 'capacity-fits'}),
    el('h2', {}, (LEVEL_NAMES[smallest.level] || smallest.level) + 's by free hosts'),
    el('div', {class: 'legend'},
       ...[['free-all', 'all free'], ['free-most', 'half or more free'], ['free-some', 'some free'],
           ['free-none', 'none free']].map(([c, t]) => el('span', {}, el('i', {class: c}), t))),
    el('div', {class: 'domains', id: 'capacity-domains'},
       ...smallest.domains.map((d) => el('span', {class: 'domain ' + freeShareClass(d.free_hosts, d.hosts),
                                                  title: d.free_gpus + ' free GPUs'},
                                         d.name + ': ' + d.free_hosts + '/' + d.hosts))),
    el('h2', {}, 'Refused for want of room (' + doc.refusals_total + ' since the daemon started)'),
    tableOr('No request was refused for want of room.', ['Time', 'Job', 'Bound to', 'Why'],
            doc.refusals.map((r) => [formatTime(r.at_unix_ms), r.job_spec, r.level, r.message]),
            {id: 'capacity-refused'}));
}

// ---- cluster map ---------------------------------------------------------------------
// Blocks are tiles that flow left to right; inside a tile each host is a cell of one
// stripe per GPU, coloured by the allocation holding it. Drawn on a canvas so 12,800 hosts
// (clos3-100k) pan and zoom without a DOM node each.

const GPU_W = 2, HOST_H = 10, HOST_GAP = 2, TILE_PAD = 6, TILE_HEAD = 14, TILE_GAP = 10;
const FREE = '#dfe3ec', HEALTH = [null, '#e08a00', '#d3302f'];

function ownerColour(index) {
  const hue = (index * 137.508) % 360;  // golden angle: neighbours differ
  return 'hsl(' + hue.toFixed(1) + ',62%,52%)';
}

// Tiles per row chosen so the whole map has about the canvas's aspect ratio.
function layoutMap(snapshot, aspect) {
  const hosts = snapshot.hosts;
  const firstGpu = new Int32Array(hosts.name.length + 1);
  for (let h = 0; h < hosts.name.length; h++) firstGpu[h + 1] = firstGpu[h] + hosts.gpus[h];
  const maxGpus = Math.max(1, ...hosts.gpus);
  const cellW = maxGpus * GPU_W + HOST_GAP, cellH = HOST_H + HOST_GAP;
  // Tiles: the fabric's blocks, then hosts in no block.
  const groups = snapshot.blocks.map((b, i) => ({label: 'pod ' + b.pod + ' / block ' + i,
                                                 hosts: b.hosts, block: i}));
  const loose = [];
  for (let h = 0; h < hosts.block.length; h++) if (hosts.block[h] < 0) loose.push(h);
  if (loose.length) groups.push({label: 'hosts in no block', hosts: loose, block: -1});
  const largest = Math.max(1, ...groups.map((g) => g.hosts.length));
  const cols = Math.max(1, Math.ceil(Math.sqrt(largest * 2)));
  const tileW = cols * cellW + 2 * TILE_PAD;
  const tallest = TILE_HEAD + Math.ceil(largest / cols) * cellH + TILE_PAD;
  const tilesPerRow = Math.max(1, Math.min(groups.length, Math.round(
    Math.sqrt(groups.length * aspect * (tallest + TILE_GAP) / (tileW + TILE_GAP)))));
  const hostX = new Float32Array(hosts.name.length), hostY = new Float32Array(hosts.name.length);
  const tiles = [];
  let x = 0, y = 0, rowH = 0, column = 0;
  for (const g of groups) {
    const rows = Math.ceil(g.hosts.length / cols);
    const tileH = TILE_HEAD + rows * cellH + TILE_PAD;
    if (column === tilesPerRow) { column = 0; x = 0; y += rowH + TILE_GAP; rowH = 0; }
    g.hosts.forEach((h, i) => {
      hostX[h] = x + TILE_PAD + (i % cols) * cellW;
      hostY[h] = y + TILE_HEAD + Math.floor(i / cols) * cellH;
    });
    tiles.push({x, y, w: tileW, h: tileH, label: g.label, block: g.block});
    rowH = Math.max(rowH, tileH);
    x += tileW + TILE_GAP;
    column++;
  }
  return {hostX, hostY, firstGpu, cellW, cellH, tiles, width: tilesPerRow * (tileW + TILE_GAP),
          height: y + rowH, highlight: new Set()};
}

function drawMap() {
  const started = performance.now();
  const m = state.map, s = state.snapshot, canvas = document.getElementById('map');
  if (!m || !s || !canvas) return;
  const ctx = canvas.getContext('2d');
  const ratio = window.devicePixelRatio || 1;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.setTransform(ratio * m.scale, 0, 0, ratio * m.scale, ratio * m.panX, ratio * m.panY);
  ctx.font = (11 / m.scale).toFixed(2) + 'px system-ui, sans-serif';
  for (const t of m.tiles) {
    ctx.fillStyle = '#f3f4f8';
    ctx.fillRect(t.x, t.y, t.w, t.h);
    if (t.block >= 0) {
      const b = s.blocks[t.block];
      // The header bar: uplink load (blue, its width the share) and uplink health.
      ctx.fillStyle = b.health === 'down' ? HEALTH[2] : b.health === 'degraded' ? HEALTH[1] : '#cfd6ea';
      ctx.fillRect(t.x, t.y, t.w, 4);
      ctx.fillStyle = '#2b5fd9';
      ctx.fillRect(t.x, t.y, t.w * Math.min(1, b.uplink_load || 0), 4);
    }
    if (m.scale > 0.9) {
      // Labels stay 11 screen pixels high, clipped to their tile.
      ctx.save();
      ctx.beginPath();
      ctx.rect(t.x, t.y, t.w, t.h);
      ctx.clip();
      ctx.fillStyle = '#445';
      ctx.fillText(t.label, t.x + TILE_PAD, t.y + TILE_HEAD - 3);
      ctx.restore();
    }
  }
  const hosts = s.hosts, owner = s.gpu_owner;
  const gpuPixels = GPU_W * m.scale;
  let drawn = 0;
  for (let h = 0; h < hosts.name.length; h++) {
    const x = m.hostX[h], y = m.hostY[h];
    const first = m.firstGpu[h], count = hosts.gpus[h];
    if (gpuPixels < 1) {
      // Too small for stripes: one colour per host, its first GPU's holder.
      ctx.fillStyle = owner[first] >= 0 ? ownerColour(owner[first]) : FREE;
      ctx.fillRect(x, y, count * GPU_W, HOST_H);
    } else {
      for (let g = 0; g < count; g++) {
        ctx.fillStyle = owner[first + g] >= 0 ? ownerColour(owner[first + g]) : FREE;
        ctx.fillRect(x + g * GPU_W, y, GPU_W - (gpuPixels > 3 ? 0.4 : 0), HOST_H);
      }
    }
    if (hosts.health[h] > 0) {
      ctx.strokeStyle = HEALTH[hosts.health[h]];
      ctx.lineWidth = 1.5 / m.scale;
      ctx.strokeRect(x - 0.5, y - 0.5, count * GPU_W + 1, HOST_H + 1);
    }
    drawn++;
  }
  for (const h of m.highlight) {
    ctx.strokeStyle = '#111';
    ctx.lineWidth = 2 / m.scale;
    ctx.strokeRect(m.hostX[h] - 1.5, m.hostY[h] - 1.5, hosts.gpus[h] * GPU_W + 3, HOST_H + 3);
  }
  m.hostsDrawn = drawn;
  m.lastDrawMs = performance.now() - started;
  if (m.firstDrawMs === undefined) m.firstDrawMs = performance.now();
  canvas.dataset.hostsDrawn = drawn;
}

function fitMap() {
  const m = state.map, canvas = document.getElementById('map');
  const width = canvas.clientWidth, height = canvas.clientHeight;
  m.scale = Math.min(width / Math.max(1, m.width), height / Math.max(1, m.height), 4);
  m.panX = 0;
  m.panY = 0;
}

function hostAt(px, py) {
  const m = state.map, s = state.snapshot;
  const x = (px - m.panX) / m.scale, y = (py - m.panY) / m.scale;
  for (let h = 0; h < s.hosts.name.length; h++) {
    if (x >= m.hostX[h] && x < m.hostX[h] + s.hosts.gpus[h] * GPU_W &&
        y >= m.hostY[h] && y < m.hostY[h] + HOST_H) return h;
  }
  return -1;
}

function describeHost(h) {
  const s = state.snapshot, info = document.getElementById('map-info');
  const first = state.map.firstGpu[h];
  const holders = new Map();
  for (let g = 0; g < s.hosts.gpus[h]; g++) {
    const o = s.gpu_owner[first + g];
    if (o >= 0) holders.set(o, (holders.get(o) || 0) + 1);
  }
  const parts = [el('b', {}, s.hosts.name[h]),
                 ' block ' + s.hosts.block[h] +
                 (s.hosts.rack[h] >= 0 ? ', NVLink rack ' + s.hosts.rack[h] : '') + ', ' +
                 s.hosts.gpus[h] + ' GPUs, access links ' + ['up', 'degraded', 'down'][s.hosts.health[h]] +
                 (holders.size ? '; held by ' : '; free')];
  [...holders].forEach(([o, n], i) => {
    const a = s.allocations[o];
    parts.push(i ? ', ' : '', jobLink(a.id, (a.external_id || a.id)), ' (' + n + ')');
  });
  info.replaceChildren(...parts);
}

function search(text) {
  const s = state.snapshot, m = state.map, info = document.getElementById('map-info');
  const needle = text.trim();
  m.highlight = new Set();
  if (!needle) { info.replaceChildren(); drawMap(); return; }
  const host = s.hosts.name.indexOf(needle);
  if (host >= 0) {
    m.highlight.add(host);
    describeHost(host);
  } else {
    const job = s.allocations.findIndex((a) => a.id === needle || a.external_id === needle);
    if (job >= 0) {
      for (let h = 0; h < s.hosts.name.length; h++) {
        for (let g = 0; g < s.hosts.gpus[h]; g++) {
          if (s.gpu_owner[m.firstGpu[h] + g] === job) { m.highlight.add(h); break; }
        }
      }
      const a = s.allocations[job];
      info.replaceChildren(jobLink(a.id), ' ' + a.external_id + ': ' + m.highlight.size + ' hosts');
    } else {
      const matches = s.hosts.name.filter((n) => n.includes(needle));
      info.replaceChildren(matches.length ? matches.length + ' hosts contain "' + needle +
                           '", e.g. ' + matches.slice(0, 5).join(', ')
                                          : 'no host or job "' + needle + '"');
    }
  }
  drawMap();
}

function sizeCanvas() {
  const canvas = document.getElementById('map');
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.parentElement.clientWidth;
  const height = Math.max(360, window.innerHeight - canvas.getBoundingClientRect().top - 70);
  canvas.style.height = height + 'px';
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
}

async function showMap() {
  const canvas = el('canvas', {id: 'map'});
  const find = el('input', {id: 'map-search', type: 'search',
                            placeholder: 'host, allocation or external id'});
  const legend = el('span', {class: 'legend'},
    el('span', {}, el('i', {class: 'free'}), 'free GPU'),
    el('span', {}, 'one colour per allocation'),
    el('span', {}, 'outline: access link degraded (orange) / down (red)'),
    el('span', {}, 'tile bar: uplink load (blue) and health'));
  setView(
    el('div', {class: 'toolbar'}, find, el('span', {id: 'map-summary', class: 'muted'}), legend),
    el('div', {id: 'map-wrap'}, canvas), el('div', {id: 'map-info'}));
  legend.querySelector('i.free').style.background = FREE;
  sizeCanvas();
  await refreshMap(true);
  find.addEventListener('change', () => search(find.value));
  find.addEventListener('keydown', (e) => { if (e.key === 'Enter') search(find.value); });
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    const m = state.map, factor = e.deltaY < 0 ? 1.25 : 0.8;
    m.panX = e.offsetX - (e.offsetX - m.panX) * factor;
    m.panY = e.offsetY - (e.offsetY - m.panY) * factor;
    m.scale *= factor;
    requestAnimationFrame(drawMap);
  }, {passive: false});
  let drag = null;
  canvas.addEventListener('mousedown', (e) => { drag = {x: e.offsetX, y: e.offsetY, moved: false}; });
  canvas.addEventListener('mousemove', (e) => {
    if (!drag) return;
    state.map.panX += e.offsetX - drag.x;
    state.map.panY += e.offsetY - drag.y;
    drag.moved = drag.moved || Math.abs(e.offsetX - drag.x) + Math.abs(e.offsetY - drag.y) > 2;
    drag.x = e.offsetX;
    drag.y = e.offsetY;
    requestAnimationFrame(drawMap);
  });
  canvas.addEventListener('mouseup', (e) => {
    if (drag && !drag.moved) {
      const h = hostAt(e.offsetX, e.offsetY);
      if (h >= 0) describeHost(h);
    }
    drag = null;
  });
}

async function refreshMap(fresh) {
  const snapshot = await fetchJson('/api/v1/snapshot');
  state.snapshot = snapshot;
  document.getElementById('fabric-name').textContent =
    snapshot.fabric.name + ' (' + snapshot.fabric.hosts + ' hosts, ' + snapshot.fabric.gpus + ' GPUs)';
  const canvas = document.getElementById('map');
  if (!canvas) return;
  const held = snapshot.gpu_owner.reduce((n, o) => n + (o >= 0 ? 1 : 0), 0);
  document.getElementById('map-summary').textContent =
    snapshot.allocations.length + ' allocations hold ' + held + ' of ' + snapshot.fabric.gpus +
    ' GPUs; links degraded ' + snapshot.links.degraded + ', down ' + snapshot.links.down;
  if (fresh || !state.map) {
    const previous = state.map;
    state.map = layoutMap(snapshot, canvas.clientWidth / Math.max(1, canvas.clientHeight));
    fitMap();
    if (previous && previous.firstDrawMs !== undefined) state.map.firstDrawMs = previous.firstDrawMs;
  }
  drawMap();
}

window.addEventListener('hashchange', show);
window.addEventListener('resize', () => {
  if (state.view && state.view.name === 'map' && state.map) { sizeCanvas(); fitMap(); drawMap(); }
});
connectEvents();
show();
