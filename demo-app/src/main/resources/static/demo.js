// The demo page's logic: polls /actuator/reliableudp and /demo/state every second, fills the tables and
// charts, and sends the controls (link conditioner per node through the actuator, kill/restart a rover).
'use strict';

const CHANNELS = ['positions', 'requests', 'frames', 'telemetry'];
const HISTORY = 180;
const COLORS = ['#73bf69', '#5794f2', '#b877d9', '#ff9830', '#f2cc0c', '#8ab8ff', '#ff7383', '#96d98d'];
const history = { t: [], latency: {}, loss: {}, resends: {} };
const lastResent = {};
let updates = 0;
let latencyChart = null;
let lossChart = null;

const fmt = (v, d = 1) => (v === null || v === undefined || Number.isNaN(v)) ? '–' : Number(v).toFixed(d);
const el = (tag, attrs = {}, text) => {
  const e = document.createElement(tag);
  Object.entries(attrs).forEach(([k, v]) => e.setAttribute(k, v));
  if (text !== undefined) e.textContent = text;
  return e;
};
const cell = (row, id, text = '') => { const td = el('td', id ? { id } : {}, text); row.appendChild(td); return td; };
const set = (id, text, cls) => { const e = document.getElementById(id); if (e) { e.textContent = text; if (cls !== undefined) e.className = cls; } };

async function getJson(url) {
  const r = await fetch(url, { cache: 'no-store' });
  if (!r.ok) throw new Error(url + ' answered ' + r.status);
  return r.json();
}

// ---------------------------------------------------------------- links (one row per node and peer)

function ensureLinkRows(nodes) {
  const body = document.querySelector('#links tbody');
  Object.entries(nodes).forEach(([node, n]) => {
    const peers = n.peers.length ? n.peers.map(p => p.name) : ['station'];
    peers.forEach((peer, i) => {
      const key = node + '-' + peer;
      if (document.getElementById('link-' + key)) return;
      const row = el('tr', { id: 'link-' + key });
      cell(row, null, node + ' → ' + peer);
      cell(row, 'state-' + key);
      cell(row, 'rtt-' + key);
      cell(row, 'lossm-' + key);
      cell(row, 'sent-' + key);
      cell(row, 'recv-' + key);
      if (i === 0) {                       // the conditioner is the node's: one set of controls per node
        const c = n.linkConditioner || {};
        [['latency', c.latencyMillis ?? 0], ['jitter', c.jitterMillis ?? 0],
         ['loss', ((c.lossProbability ?? 0) * 100).toFixed(1)], ['bandwidth', c.bandwidthBytesPerSecond ?? 0]].forEach(([f, v]) => {
          const td = el('td');
          const input = el('input', { id: 'set-' + node + '-' + f, type: 'number', min: '0', step: 'any', value: String(v) });
          td.appendChild(input);
          row.appendChild(td);
        });
        const td = el('td');
        const b = el('button', { id: 'apply-' + node }, 'apply');
        b.addEventListener('click', () => applyLink(node));
        td.appendChild(b);
        row.appendChild(td);
      } else {
        for (let k = 0; k < 5; k++) cell(row, null);
      }
      body.appendChild(row);
    });
  });
}

async function applyLink(node) {
  const v = f => Number(document.getElementById('set-' + node + '-' + f).value || 0);
  const body = { node, latencyMillis: v('latency'), jitterMillis: v('jitter'), lossProbability: v('loss') / 100,
                 bandwidthBytesPerSecond: Math.round(v('bandwidth')), seed: 42 };
  const r = await fetch('/actuator/reliableudp', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  set('apply-' + node, r.ok ? 'applied' : 'rejected (' + r.status + ')');
  setTimeout(() => set('apply-' + node, 'apply'), 1500);
}

function fillLinks(nodes) {
  Object.entries(nodes).forEach(([node, n]) => {
    n.peers.forEach(p => {
      const key = node + '-' + p.name;
      set('state-' + key, p.state, p.state === 'CONNECTED' ? 'ok' : 'down');
      set('rtt-' + key, fmt(p.rttMillis));
      set('lossm-' + key, fmt(p.packetLoss * 100));
      set('sent-' + key, fmt(p.sentKbps, 0));
      set('recv-' + key, fmt(p.receivedKbps, 0));
    });
    if (!n.open) set('state-' + node + '-station', 'DOWN', 'down');
  });
}

// ---------------------------------------------------------------- delivery, channels

function ensureDeliveryRows(state) {
  const body = document.querySelector('#delivery tbody');
  const lanes = Object.keys(state.tcp);
  [...Object.keys(state.rovers), ...lanes].forEach(name => {
    if (document.getElementById('dl-' + name)) return;
    const tcp = lanes.includes(name);
    const row = el('tr', { id: 'dl-' + name, class: tcp ? 'tcp' : '' });
    cell(row, null, tcp ? name + ' (rover-1\'s positions, ' + state.tcp[name].mode + ')' : name + ' positions');
    ['sent', 'delivered', 'resent', 'failed', 'intact', 'p50', 'p90', 'p99', 'max', 'frames', 'telemetry', 'queries']
      .forEach(f => cell(row, f + '-' + name));
    const td = el('td');
    if (!tcp) {
      const kill = el('button', { id: 'kill-' + name, class: 'danger' }, 'kill');
      kill.addEventListener('click', () => control(name, 'kill'));
      const restart = el('button', { id: 'restart-' + name }, 'restart');
      restart.addEventListener('click', () => control(name, 'restart'));
      td.append(kill, ' ', restart);
    }
    row.appendChild(td);
    body.appendChild(row);
  });
}

async function control(rover, what) {
  set(what + '-' + rover, what + '…');
  const r = await fetch('/demo/rovers/' + rover + '/' + what, { method: 'POST' });
  set(what + '-' + rover, r.ok ? what : what + ' failed');
}

function positionsChannel(nodes, rover) {
  const n = nodes[rover];
  const p = n && n.peers.find(x => x.name === 'station');
  return p ? p.channels.find(c => c.channel === 0) : null;
}

function fillDelivery(state, nodes) {
  Object.entries(state.rovers).forEach(([name, r]) => {
    const ch = positionsChannel(nodes, name);
    set('sent-' + name, r.positionsSent);
    set('delivered-' + name, r.positionsDelivered);
    set('resent-' + name, ch ? ch.messagesResent : '–');
    set('failed-' + name, r.positionsFailed + (r.positionsPending ? ' (+' + r.positionsPending + ' pending)' : ''));
    set('intact-' + name, r.inOrder ? 'in order, none missing' : 'REORDERED ' + r.outOfOrder + (r.framesCorrupt ? ', frames corrupt' : ''),
        r.inOrder ? 'ok' : 'bad');
    ['p50', 'p90', 'p99', 'max'].forEach(q => set(q + '-' + name, fmt(r.latencyMillis[q])));
    set('frames-' + name, r.framesDelivered + '/' + r.framesSent + (r.framesCorrupt ? ' CORRUPT ' + r.framesCorrupt : ''));
    set('telemetry-' + name, r.telemetryReceived + '/' + r.telemetrySent);
    set('queries-' + name, r.replies + '/' + r.queries);
    const row = document.getElementById('dl-' + name);
    if (row) row.className = r.alive ? '' : 'down';
    set('kill-' + name, r.alive ? 'kill' : 'killed (epoch ' + r.epoch + ')');
  });
  const notes = [];
  Object.entries(state.tcp).forEach(([name, t]) => {
    set('sent-' + name, t.sent);
    set('delivered-' + name, t.delivered);
    set('intact-' + name, 'in order (TCP)', 'ok');
    ['p50', 'p90', 'p99', 'max'].forEach(q => set(q + '-' + name, fmt(t.latencyMillis[q])));
    notes.push(name + ' (' + t.mode + ', ' + (t.lossProbability * 100).toFixed(1) + ' % loss now): ' + t.description + '.');
  });
  set('tcp-mode', notes.join(' '));
}

function fillChannels(nodes) {
  const body = document.querySelector('#channels tbody');
  Object.entries(nodes).filter(([name]) => name !== 'station').forEach(([rover, n]) => {
    const up = n.peers.find(x => x.name === 'station');
    const st = nodes.station && nodes.station.peers.find(x => x.name === rover);
    CHANNELS.forEach((chName, i) => {
      const key = rover + '-' + chName;
      if (!document.getElementById('ch-' + key)) {
        const row = el('tr', { id: 'ch-' + key });
        cell(row, null, rover);
        cell(row, null, chName);
        ['mode', 'sent', 'acked', 'resent', 'delivered', 'queued'].forEach(f => cell(row, 'ch' + f + '-' + key));
        body.appendChild(row);
      }
      const c = up && up.channels.find(x => x.channel === i);
      const d = st && st.channels.find(x => x.channel === i);
      set('chmode-' + key, c ? c.mode.toLowerCase().replace('_', '-') : '–');
      set('chsent-' + key, c ? c.messagesSent : '–');
      set('chacked-' + key, c ? c.messagesAcked : '–');
      set('chresent-' + key, c ? c.messagesResent : '–');
      set('chdelivered-' + key, d ? d.messagesDelivered : '–');
      set('chqueued-' + key, c ? c.queuedMessages : '–');
    });
  });
}

// ---------------------------------------------------------------- charts

function chart(target, names, yLabel) {
  const series = [{}].concat(names.map((n, i) => ({ label: n, stroke: COLORS[i % COLORS.length], width: 2, spanGaps: true })));
  return new uPlot({ width: 620, height: 240, series, axes: [{ stroke: '#8e8e8e', grid: { stroke: '#2c2d33' } },
    { stroke: '#8e8e8e', grid: { stroke: '#2c2d33' }, label: yLabel }], scales: { x: { time: true } } },
    [[]].concat(names.map(() => [])), document.getElementById(target));
}

function record(state, nodes) {
  const now = Date.now() / 1000;
  history.t.push(now);
  const rovers = Object.keys(state.rovers);
  rovers.forEach(r => {
    (history.latency[r] ||= []).push(state.rovers[r].latencyMillis.p99);
    const up = nodes[r] && nodes[r].peers.find(x => x.name === 'station');
    (history.loss[r] ||= []).push(up ? up.packetLoss * 100 : null);
    const ch = positionsChannel(nodes, r);
    const resent = ch ? ch.messagesResent : null;
    (history.resends[r] ||= []).push(resent !== null && lastResent[r] !== undefined && resent >= lastResent[r] ? resent - lastResent[r] : null);
    lastResent[r] = resent === null ? undefined : resent;
  });
  const lanes = Object.keys(state.tcp);
  lanes.forEach(l => (history.latency[l] ||= []).push(state.tcp[l].latencyMillis.p99));
  if (history.t.length > HISTORY) {
    history.t.shift();
    Object.values(history.latency).concat(Object.values(history.loss), Object.values(history.resends)).forEach(a => a.shift());
  }
  if (!latencyChart) {
    latencyChart = chart('chart-latency', rovers.concat(lanes), 'ms');
    lossChart = chart('chart-loss', rovers.map(r => r + ' loss %').concat(rovers.map(r => r + ' resends/s')), '');
  }
  latencyChart.setData([history.t].concat(rovers.map(r => history.latency[r]), lanes.map(l => history.latency[l])));
  lossChart.setData([history.t].concat(rovers.map(r => history.loss[r]), rovers.map(r => history.resends[r])));
}

// ---------------------------------------------------------------- loop

async function tick() {
  try {
    const [report, state] = await Promise.all([getJson('/actuator/reliableudp'), getJson('/demo/state')]);
    const nodes = report.nodes;
    ensureLinkRows(nodes);
    fillLinks(nodes);
    ensureDeliveryRows(state);
    fillDelivery(state, nodes);
    fillChannels(nodes);
    record(state, nodes);
    updates++;
    const live = document.getElementById('live');
    live.dataset.updates = String(updates);
    live.className = '';
    live.textContent = 'live · ' + new Date().toLocaleTimeString() + ' · ' + updates + ' updates';
  } catch (e) {
    const live = document.getElementById('live');
    live.className = 'stale';
    live.textContent = 'no data: ' + e.message;
  }
}

tick();
setInterval(tick, 1000);
