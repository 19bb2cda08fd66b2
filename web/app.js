// The unit's web page. Plain JavaScript, no framework: everything goes through the same /api/v1 routes a
// client uses, plus /web/api/* for the parameter registry, telemetry history and the live image stream.
const API = '/api/v1';
const $ = (id) => document.getElementById(id);

/** fetch() that answers { status, ok, body } with the body parsed when it is JSON. */
async function api(path, init = {}) {
  const headers = { ...(init.headers ?? {}) };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path.startsWith('/web/') ? path : `${API}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
  });
  const text = await res.text();
  let body = text;
  if (/json/.test(res.headers.get('content-type') ?? '') && text) body = JSON.parse(text);
  return { status: res.status, ok: res.ok, body };
}

const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  for (const c of children) node.append(c);
  return node;
};
const problemText = (body) => (typeof body === 'object' && body ? (body.detail ?? body.title) : String(body));
const nsToDate = (ns) => new Date(Number(BigInt(ns) / 1000000n));
const timeOf = (d) => d.toLocaleTimeString([], { hour12: false });

// ---------------------------------------------------------------- status (header)
const unit = { status: null, fw: null, commitPending: null, initId: null, reachable: true };

async function refreshStatus() {
  try {
    const [info, fw] = await Promise.all([api('/sensor/metadata/sensor_info'), api('/system/firmware')]);
    if (info.status === 503 || fw.status === 503) return showStatus({ reachable: false, status: 'RESTARTING' });
    if (!info.ok || !fw.ok) return;
    $('product').textContent = info.body.prod_line;
    $('serial').textContent = `serial ${info.body.prod_sn}`;
    $('part-number').textContent = info.body.prod_pn;
    document.title = `${info.body.prod_line} ${info.body.prod_sn}`;
    showStatus({
      reachable: true,
      status: info.body.status,
      fw: fw.body.fw,
      commitPending: fw.body.commit_pending,
      initId: info.body.initialization_id,
    });
  } catch {
    showStatus({ reachable: false, status: 'UNREACHABLE' });
  }
}

function showStatus(next) {
  const changedInit = next.initId !== undefined && next.initId !== unit.initId;
  Object.assign(unit, next);
  $('status').textContent = unit.status;
  $('status').className = `badge ${unit.status}`;
  if (unit.fw) $('firmware').textContent = unit.fw;
  if (unit.commitPending !== null) $('commit-pending').textContent = String(unit.commitPending);
  if (unit.initId !== null) $('init-id').textContent = String(unit.initId);
  const banner = $('banner');
  banner.hidden = unit.reachable;
  banner.textContent = unit.reachable ? '' : 'The unit is restarting; this page reconnects by itself.';
  if (changedInit && unit.reachable) void loadConfig(false);
  for (const listener of statusListeners) listener(unit);
}
const statusListeners = new Set();

$('restart').addEventListener('click', async () => {
  if (!confirm('Restart the unit? Unpersisted changes are lost.')) return;
  const res = await api('/system/restart', { method: 'POST', json: {} });
  if (!res.ok) alert(`Restart refused: ${problemText(res.body)}`);
  void refreshStatus();
});

// ---------------------------------------------------------------- configuration form
let registry = [];
let active = {};

function inputFor(param) {
  const s = param.schema;
  if (Array.isArray(s.enum)) {
    const select = el('select', { name: param.name });
    for (const v of s.enum) select.append(el('option', { value: JSON.stringify(v), textContent: String(v) }));
    return select;
  }
  if (s.type === 'boolean') return el('input', { type: 'checkbox', name: param.name });
  if (s.type === 'integer' || s.type === 'number') {
    const input = el('input', { type: 'number', name: param.name, step: s.type === 'integer' ? '1' : 'any' });
    if (s.minimum !== undefined) input.min = s.minimum;
    if (s.maximum !== undefined) input.max = s.maximum;
    return input;
  }
  if (s.type === 'array') {
    const item = s.items ?? {};
    const pair = el('span', { className: 'pair' });
    for (let i = 0; i < (s.minItems ?? 2); i++) {
      pair.append(
        el('input', {
          type: 'number',
          name: `${param.name}.${i}`,
          step: '1',
          min: item.minimum ?? '',
          max: item.maximum ?? '',
        }),
      );
    }
    return pair;
  }
  return el('input', { type: 'text', name: param.name, maxLength: s.maxLength ?? 1000 });
}

function buildForm() {
  const fields = $('config-fields');
  fields.replaceChildren();
  for (const p of registry) {
    const id = `cfg-${p.name}`;
    const input = inputFor(p);
    if (input.name) input.id = id;
    const range = p.schema.minimum !== undefined ? ` (${p.schema.minimum}..${p.schema.maximum})` : '';
    const field = el(
      'div',
      { className: 'field', id: `field-${p.name}` },
      input,
      el('span', { className: 'hint', textContent: p.description + range }),
      el('span', { className: 'error', id: `err-${p.name}` }),
    );
    fields.append(el('label', { htmlFor: id, textContent: p.name, title: p.description }), field);
    if (p.readOnly) for (const input of field.querySelectorAll('input, select')) input.disabled = true;
    field.addEventListener('input', () => markChanged(p));
    field.addEventListener('change', () => markChanged(p));
  }
}

/** The form's value of a parameter: a JSON value, or the raw text when it is not a number (the server says why). */
function formValue(p) {
  const field = $(`field-${p.name}`);
  const inputs = [...field.querySelectorAll('input, select')];
  const number = (i) => (i.value.trim() === '' || Number.isNaN(Number(i.value)) ? i.value : Number(i.value));
  if (p.schema.type === 'array') return inputs.map(number);
  const [i] = inputs;
  if (i.tagName === 'SELECT') return JSON.parse(i.value);
  if (i.type === 'checkbox') return i.checked;
  if (i.type === 'number') return number(i);
  return i.value;
}

function setFormValue(p, value) {
  const inputs = [...$(`field-${p.name}`).querySelectorAll('input, select')];
  if (p.schema.type === 'array') {
    for (const [k, input] of inputs.entries()) input.value = String(value?.[k] ?? '');
  } else if (inputs[0].tagName === 'SELECT') {
    // A value the registry does not list (a replayed LEGACY recording's profile) is the unit's own: offer it.
    const text = JSON.stringify(value);
    if (![...inputs[0].options].some((o) => o.value === text))
      inputs[0].append(el('option', { value: text, textContent: String(value) }));
    inputs[0].value = text;
  } else if (inputs[0].type === 'checkbox') inputs[0].checked = Boolean(value);
  else inputs[0].value = String(value ?? '');
}

const sameValue = (a, b) => JSON.stringify(a) === JSON.stringify(b);
function markChanged(p) {
  $(`field-${p.name}`).classList.toggle('changed', !sameValue(formValue(p), active[p.name]));
}

function clearErrors() {
  $('config-error').textContent = '';
  for (const p of registry) {
    $(`err-${p.name}`).textContent = '';
    $(`field-${p.name}`).classList.remove('invalid');
  }
}

/** Reads the active configuration; `resetForm` also puts it into every field (else only unchanged ones follow). */
async function loadConfig(resetForm = true) {
  const res = await api('/sensor/config');
  if (!res.ok) return;
  const previous = active;
  active = res.body;
  for (const p of registry) {
    const untouched = sameValue(formValue(p), previous[p.name]);
    if (resetForm || untouched) setFormValue(p, active[p.name]);
    markChanged(p);
  }
}

async function applyConfig(changes) {
  clearErrors();
  $('config-result').textContent = '';
  if (Object.keys(changes).length === 0) {
    $('config-result').textContent = 'Nothing to apply: the form equals the active configuration.';
    return;
  }
  $('config-apply').disabled = true;
  try {
    const res = await api('/sensor/config', { method: 'POST', json: changes });
    if (res.ok) {
      await loadConfig(true);
      await refreshStatus();
      const summary = Object.entries(changes)
        .map(([k, v]) => `${k} = ${JSON.stringify(active[k] ?? v)}`)
        .join(', ');
      $('config-result').textContent = `Applied and persisted: ${summary} (initialization ${unit.initId}).`;
      return;
    }
    $('config-error').textContent = `${res.status}: ${problemText(res.body)}`;
    for (const e of res.body?.errors ?? []) {
      const name = e.pointer.replace(/^\//, '').split('/')[0];
      const slot = $(`err-${name}`);
      if (!slot) continue;
      slot.textContent = e.detail;
      $(`field-${name}`).classList.add('invalid');
    }
  } finally {
    $('config-apply').disabled = false;
  }
}

$('config-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const changes = {};
  for (const p of registry) {
    if (p.readOnly) continue;
    const value = formValue(p);
    if (!sameValue(value, active[p.name])) changes[p.name] = value;
  }
  void applyConfig(changes);
});
$('config-reset').addEventListener('click', async () => {
  clearErrors();
  $('config-result').textContent = '';
  // Apply waits for the reload: a value typed meanwhile would otherwise be overwritten by it.
  $('config-apply').disabled = true;
  try {
    await loadConfig(true);
    $('config-result').textContent = 'Form reset to the active configuration.';
  } finally {
    $('config-apply').disabled = false;
  }
});
$('stream-here').addEventListener('click', () => void applyConfig({ udp_dest: '@auto' }));
// The live view offers the same when the unit sends nothing for want of a destination.
$('live-stream-here').addEventListener('click', () => void applyConfig({ udp_dest: '@auto' }));

// The vendor's clients keep only datagrams from the address they talk HTTP to. Behind a published port or another
// NAT the page reaches the unit at one address while its UDP leaves from another: say so where streaming is offered.
async function checkUdpSource() {
  const answer = await api('/web/api/udp-source');
  if (!answer.ok || !answer.body.source) return;
  const here = location.hostname === 'localhost' ? '127.0.0.1' : location.hostname.replace(/^\[|\]$/g, '');
  const { source } = answer.body;
  const note = $('udp-source-note');
  note.hidden = here === source;
  note.dataset.source = source;
  note.textContent = note.hidden
    ? ''
    : `This page reaches the unit at ${here}, but its lidar and IMU data to this computer leave from ${source}. ` +
      `Clients that accept data only from the address they talk HTTP to (the vendor SDK, ouster-ros) drop it: ` +
      `point them at ${source}, not at ${here}.`;
}

// ---------------------------------------------------------------- live range / reflectivity image
const PALETTE = (() => {
  // A perceptual rainbow (near: warm, far: cold); index 0 = no return = black.
  const stops = [
    [0.6, 0.05, 0.1],
    [0.95, 0.35, 0.1],
    [0.98, 0.8, 0.2],
    [0.4, 0.85, 0.4],
    [0.15, 0.6, 0.85],
    [0.2, 0.2, 0.6],
  ];
  const table = new Uint8ClampedArray(256 * 4);
  for (let i = 1; i < 256; i++) {
    const t = ((i - 1) / 254) * (stops.length - 1);
    const k = Math.min(stops.length - 2, Math.floor(t));
    const f = t - k;
    for (let c = 0; c < 3; c++) table[i * 4 + c] = 255 * (stops[k][c] * (1 - f) + stops[k + 1][c] * f);
    table[i * 4 + 3] = 255;
  }
  table[3] = 255;
  return table;
})();

// Reflectivity of most surfaces is low: a square-root curve shows them apart.
const GREY = Uint8ClampedArray.from({ length: 256 }, (_, v) => Math.round(255 * Math.sqrt(v / 255)));

function draw(canvas, bytes, width, height, colour) {
  if (canvas.width !== width || canvas.height !== height) Object.assign(canvas, { width, height });
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(width, height);
  for (let i = 0; i < bytes.length; i++) {
    const v = bytes[i];
    if (colour) img.data.set(PALETTE.subarray(v * 4, v * 4 + 4), i * 4);
    else img.data.set([GREY[v], GREY[v], GREY[v], 255], i * 4);
  }
  ctx.putImageData(img, 0, 0);
}
const fromBase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

let live = null;
const liveState = { frames: 0, width: 0 };
/** When the stream was cut (the unit cut a viewer that stopped reading, restarted, or the network failed). */
let liveCutAt = null;
const clock = (date) => date.toLocaleTimeString();
/** Says what happened to the stream under the picture (a cut and the reconnection, pictures skipped). */
function liveNote(text) {
  $('live-note').textContent = text;
  $('live-note').hidden = !text;
}
/** An event arrived: if the stream had been cut, it is back. */
function liveBack() {
  if (liveCutAt === null) return;
  liveNote(`Cut off at ${clock(liveCutAt)}; reconnected at ${clock(new Date())}.`);
  liveCutAt = null;
}
function watchLive() {
  if (live || document.hidden) return;
  live = new EventSource('/web/api/live-image');
  for (const name of ['frame', 'idle', 'waiting']) live.addEventListener(name, liveBack);
  // The unit sends only the newest picture to a connection slower than the stream, and says how many it skipped.
  live.addEventListener('dropped', (event) => {
    const { messages } = JSON.parse(event.data);
    liveNote(`${messages} picture${messages === 1 ? '' : 's'} skipped: this connection is slower than the stream.`);
  });
  live.addEventListener('frame', (event) => {
    const f = JSON.parse(event.data);
    liveState.frames++;
    liveState.width = f.width;
    draw($('range-image'), fromBase64(f.range), f.width, f.height, true);
    draw($('reflectivity-image'), fromBase64(f.reflectivity), f.width, f.height, false);
    $('image-size').textContent = `${f.width} × ${f.height} px (every 4th of ${f.columnsPerFrame} columns)`;
    $('image-size').dataset.width = String(f.width);
    $('image-state').textContent =
      `Streaming: initialization ${f.initId}, ${f.packetsSent.toLocaleString()} lidar packets sent, up to ${(f.rangeScaleMm / 1000).toFixed(1)} m.`;
    $('image-state').dataset.state = 'streaming';
    $('live-offer').hidden = true;
    zoneStates = new Map((f.zones ?? []).map((z) => [z.id, z]));
    showZoneStates();
  });
  // Sent at once when the unit sends nothing, with the reason (udp_dest, STANDBY, port 0, a fault).
  live.addEventListener('idle', (event) => {
    const why = JSON.parse(event.data);
    $('image-state').textContent =
      why.reason ?? 'No lidar data is being sent: set udp_dest (e.g. "Stream to this computer") in NORMAL mode.';
    $('image-state').dataset.state = `idle-${why.code ?? 'unknown'}`;
    $('live-offer').hidden = !(why.code === 'no-destination' || why.code === 'unknown');
    for (const id of ['range-image', 'reflectivity-image']) {
      const canvas = $(id);
      canvas.getContext('2d').clearRect(0, 0, canvas.width, canvas.height);
    }
  });
  live.addEventListener('waiting', () => {
    $('image-state').textContent = 'Data is being sent; the first picture follows.';
    $('image-state').dataset.state = 'waiting';
    $('live-offer').hidden = true;
  });
  live.addEventListener('unavailable', () => ($('image-state').textContent = 'This unit has no live view.'));
  live.onerror = () => {
    liveCutAt ??= new Date();
    $('image-state').textContent = `Live view cut off at ${clock(liveCutAt)}; reconnecting…`;
    $('image-state').dataset.state = 'cut-off';
    // The browser retries by itself unless the unit answered with an error (503 while it restarts): then the
    // page retries, as long as it is shown.
    if (live.readyState === EventSource.CLOSED) {
      live = null;
      setTimeout(watchLive, 2000);
    }
  };
}
// Nobody watching costs the data plane nothing: a hidden page closes its stream.
document.addEventListener('visibilitychange', () => {
  if (document.hidden && live) {
    live.close();
    live = null;
  } else watchLive();
});

// ---------------------------------------------------------------- alerts (cursor-based)
let alertCursor = null;
const alertLog = new Map();

function alertItem(a, asLog) {
  const when = el('span', { className: 'when', textContent: timeOf(nsToDate(a.realtime)) });
  const kind = asLog ? (a.active ? 'TRIGGER ' : 'CLEAR ') : '';
  const li = el(
    'li',
    { className: `${a.level}${asLog && !a.active ? ' clear' : ''}` },
    when,
    el('strong', { textContent: `${kind}${a.level} ` }),
    el('span', { className: 'id', textContent: `${a.id} ${a.category}` }),
    el('div', { textContent: a.msg, title: a.msg_verbose ?? '' }),
  );
  li.dataset.id = a.id;
  return li;
}

async function refreshAlerts() {
  const res = await api(`/sensor/alerts${alertCursor === null ? '' : `?cursor=${alertCursor}`}`);
  if (!res.ok) return;
  for (const entry of res.body.log) alertLog.set(`${entry.cursor}`, entry);
  alertCursor = res.body.next_cursor;
  $('alerts-active').replaceChildren(...res.body.active.map((a) => alertItem(a, false)));
  const history = [...alertLog.values()]
    .sort((a, b) => (BigInt(b.realtime) > BigInt(a.realtime) ? 1 : -1))
    .slice(0, 200);
  $('alerts-log').replaceChildren(...history.map((a) => alertItem(a, true)));
  $('alert-count').textContent = `${res.body.active.length} active`;
}

// ---------------------------------------------------------------- telemetry plot
const TELEMETRY_WINDOW_MS = 10 * 60 * 1000;
let telemetry = [];

function plotTelemetry() {
  const canvas = $('telemetry-plot');
  const ctx = canvas.getContext('2d');
  const W = canvas.width;
  const H = canvas.height;
  ctx.clearRect(0, 0, W, H);
  const now = Date.now();
  const series = [
    { key: 'v', label: 'Input voltage (V)', colour: '#1f6feb', get: (s) => s.input_voltage_mv / 1000 },
    { key: 't', label: 'Temperature (°C)', colour: '#c62828', get: (s) => s.internal_temperature_deg_c },
    { key: 'p', label: 'Power (W)', colour: '#1a7f37', get: (s) => (s.input_voltage_mv * s.input_current_ma) / 1e6 },
  ];
  const band = (H - 30) / series.length;
  ctx.font = '11px system-ui, sans-serif';
  series.forEach((s, k) => {
    const top = 6 + k * band;
    const points = telemetry.map((t) => [t.at, s.get(t)]).filter(([, v]) => Number.isFinite(v));
    ctx.fillStyle = '#6a7585';
    ctx.fillText(s.label, 4, top + 10);
    ctx.strokeStyle = '#dde2ea';
    ctx.strokeRect(40, top + 14, W - 44, band - 20);
    if (!points.length) return;
    let lo = Math.min(...points.map((p) => p[1]));
    let hi = Math.max(...points.map((p) => p[1]));
    if (hi - lo < 0.5) [lo, hi] = [lo - 0.25, hi + 0.25];
    ctx.fillText(hi.toFixed(1), 4, top + 24);
    ctx.fillText(lo.toFixed(1), 4, top + band - 6);
    ctx.strokeStyle = s.colour;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    points.forEach(([at, v], i) => {
      const x = 40 + ((at - (now - TELEMETRY_WINDOW_MS)) / TELEMETRY_WINDOW_MS) * (W - 44);
      const y = top + 14 + (1 - (v - lo) / (hi - lo)) * (band - 20);
      if (i === 0) ctx.moveTo(x, y);
      else ctx.lineTo(x, y);
    });
    ctx.stroke();
    // The latest sample as a dot: visible even before there is a line.
    const [at, v] = points[points.length - 1];
    ctx.fillStyle = s.colour;
    ctx.beginPath();
    ctx.arc(
      40 + ((at - (now - TELEMETRY_WINDOW_MS)) / TELEMETRY_WINDOW_MS) * (W - 44) - 3,
      top + 14 + (1 - (v - lo) / (hi - lo)) * (band - 20),
      3,
      0,
      2 * Math.PI,
    );
    ctx.fill();
  });
  ctx.fillStyle = '#6a7585';
  ctx.fillText('−10 min', 40, H - 6);
  ctx.fillText('now', W - 24, H - 6);
}

async function refreshTelemetry() {
  const res = await api('/sensor/telemetry');
  if (!res.ok) return;
  const t = res.body;
  telemetry.push({ ...t, at: Date.now() });
  telemetry = telemetry.filter((s) => s.at > Date.now() - TELEMETRY_WINDOW_MS);
  const v = t.input_voltage_mv !== undefined ? `${(t.input_voltage_mv / 1000).toFixed(2)} V` : 'n/a';
  const i = t.input_current_ma !== undefined ? `${t.input_current_ma} mA` : 'n/a';
  $('telemetry-now').textContent =
    `${v} · ${i} · ${t.internal_temperature_deg_c ?? 'n/a'} °C · phase lock ${t.phase_lock_status}`;
  plotTelemetry();
}

// ---------------------------------------------------------------- time and network
function facts(target, entries) {
  target.replaceChildren(...entries.flatMap(([k, v]) => [el('dt', { textContent: k }), el('dd', { textContent: v })]));
}

async function refreshTimeNetwork() {
  const [system, sensor, ptp, network] = await Promise.all(
    ['/time/system', '/time/sensor', '/time/ptp', '/system/network'].map((p) => api(p)),
  );
  if (system.ok && sensor.ok && ptp.ok) {
    facts($('time-facts'), [
      ['System clock', new Date(system.body.realtime * 1000).toISOString()],
      ['Time sync', system.body.tracking?.leap_status ?? 'n/a'],
      ['Timestamp mode', sensor.body.timestamp?.mode ?? ''],
      ['Sensor time', `${sensor.body.timestamp?.time ?? ''} s`],
      ['PTP', `${ptp.body.port_data_set?.port_state ?? ''} (profile ${ptp.body.profile ?? ''})`],
    ]);
  }
  if (network.ok) {
    const n = network.body;
    facts($('network-facts'), [
      ['Host name', n.hostname],
      ['IPv4', `${n.ipv4.addr}${n.ipv4.override ? ` (override ${n.ipv4.override})` : ''}`],
      ['Link-local', `${n.ipv4.link_local} · ${n.ipv6.link_local}`],
      ['MAC', n.ethaddr],
      ['Link', `${n.carrier ? 'up' : 'down'}, ${n.speed} Mbit/s ${n.duplex}`],
    ]);
  }
}

// ---------------------------------------------------------------- user data
async function loadUserData() {
  const res = await api('/user/data?include_metadata=true');
  if (!res.ok) return;
  $('user-data-value').value = res.body.value;
  $('user-data-policy').value = res.body.policy;
}
$('user-data-save').addEventListener('click', async () => {
  const policy = $('user-data-policy').value;
  const res = await api(`/user/data?policy=${policy}`, { method: 'PUT', json: $('user-data-value').value });
  $('user-data-result').textContent = res.ok ? 'Saved.' : `${res.status}: ${problemText(res.body)}`;
  $('user-data-result').className = res.ok ? 'ok' : 'error';
});
$('user-data-delete').addEventListener('click', async () => {
  const res = await api('/user/data', { method: 'DELETE' });
  $('user-data-result').textContent = res.ok ? 'Deleted.' : `${res.status}: ${problemText(res.body)}`;
  $('user-data-result').className = res.ok ? 'ok' : 'error';
  await loadUserData();
});

// ---------------------------------------------------------------- firmware update
function step(text, state = '') {
  const li = el('li', { textContent: text, className: state });
  $('firmware-steps').append(li);
  return li;
}

$('firmware-upload').addEventListener('click', () => {
  const file = $('firmware-file').files[0];
  if (!file) return void step('Choose an image file first.', 'failed');
  $('firmware-steps').replaceChildren();
  $('firmware-upload').disabled = true;
  const progress = $('firmware-progress');
  progress.value = 0;
  const uploading = step(`Uploading ${file.name} (${file.size.toLocaleString()} bytes)…`);
  const xhr = new XMLHttpRequest();
  xhr.open('POST', `${API}/system/firmware`);
  xhr.setRequestHeader('content-type', 'application/octet-stream');
  xhr.upload.onprogress = (e) => {
    if (e.lengthComputable) progress.value = Math.round((e.loaded / e.total) * 100);
  };
  xhr.onload = () => {
    uploading.className = 'done';
    if (xhr.status === 204) {
      progress.value = 100;
      step('Image received and verified; the unit reboots into it.', 'done');
      followUpdate(unit.fw);
      return;
    }
    // The problem's title names the reason (e.g. "Firmware image is not signed"), its detail the specifics.
    let reason = `${xhr.status}`;
    let detail = xhr.responseText;
    try {
      const problem = JSON.parse(xhr.responseText);
      if (problem?.title) reason = `${xhr.status} ${problem.title}`;
      detail = problemText(problem);
    } catch {}
    step(`Refused (${reason}): ${detail}`, 'failed');
    $('firmware-upload').disabled = false;
  };
  xhr.onerror = () => {
    step('The upload failed (connection lost).', 'failed');
    $('firmware-upload').disabled = false;
  };
  xhr.send(file);
});

/** Follows the reboot: each status the unit goes through, then the commit of the new image. */
function followUpdate(previousFw) {
  let lastStatus = null;
  const started = Date.now();
  const listener = (u) => {
    const label = u.reachable ? u.status : 'unreachable (rebooting)';
    if (label !== lastStatus) {
      step(`Unit: ${label}`);
      lastStatus = label;
    }
    if (u.reachable && u.status === 'RUNNING' && u.fw && u.fw !== previousFw && u.commitPending === false) {
      step(`Committed: now running ${u.fw}.`, 'done');
      finish();
    } else if (u.reachable && u.status === 'RUNNING' && u.fw === previousFw && Date.now() - started > 3000) {
      step(`Rolled back: still running ${u.fw}.`, 'failed');
      finish();
    }
  };
  const fast = setInterval(refreshStatus, 300);
  const finish = () => {
    statusListeners.delete(listener);
    clearInterval(fast);
    $('firmware-upload').disabled = false;
  };
  statusListeners.add(listener);
}

// ---------------------------------------------------------------- zones
/**
 * Zone Monitor (firmware 3.2 only: the card stays hidden where the firmware has none): the active set's zones, and
 * each live zone's state as the unit's zone packets carry it, from the live view's stream (showZoneStates).
 */
let zoneStates = new Map();
async function refreshZones() {
  const res = await api('/web/api/zones');
  document.getElementById('zones').hidden = !res.ok;
  if (!res.ok) return;
  const set = res.body;
  document.getElementById('zone-set-label').textContent = set ? set.label : 'no zone set active';
  // What watches the zones here: a unit without zone hardware says so beside its zones.
  document.getElementById('zone-watcher').textContent = !set
    ? 'Upload and apply a zone set (docs/zone-monitor.md) to watch zones.'
    : set.watcher.hardware
      ? ''
      : set.watcher.detail;
  const list = document.getElementById('zone-list');
  list.replaceChildren(
    ...(set?.zones ?? []).map((z) => {
      const item = document.createElement('li');
      item.dataset.zone = String(z.id);
      item.dataset.live = String(z.live);
      const state = document.createElement('span');
      state.className = 'zone-state';
      const text = document.createElement('span');
      text.textContent = `${z.id}${z.label ? ` ${z.label}` : ''}: ${z.mode}, ${z.point_count} points, ${z.frame_count} frames${z.live ? ' — live' : ''}`;
      item.append(state, text);
      return item;
    }),
  );
  showZoneStates();
}
/** Marks each listed zone with its state from the last zone packet: clear, triggered, obstructed or invalid. */
function showZoneStates() {
  for (const item of document.querySelectorAll('#zone-list li')) {
    const s = zoneStates.get(Number(item.dataset.zone));
    const state = s?.state ?? (item.dataset.live === 'true' ? 'waiting' : 'not live');
    item.dataset.state = state;
    item.querySelector('.zone-state').textContent = state;
    item.title = s ? `${s.count} returns in the zone in the last frame` : '';
  }
}

// ---------------------------------------------------------------- start
const every = (ms, fn) => {
  const run = () => fn().catch(() => undefined);
  void run();
  setInterval(run, ms);
};

async function start() {
  // The live view first: it says at once what the unit sends (or why nothing), while the form loads.
  watchLive();
  const reg = await api('/web/api/registry');
  registry = reg.body.parameters;
  buildForm();
  await Promise.all([loadConfig(true), loadUserData(), checkUdpSource()]);
  const history = await api('/web/api/telemetry-history');
  if (history.ok) telemetry = history.body.samples;
  every(1000, refreshStatus);
  every(1000, refreshAlerts);
  every(2000, refreshTelemetry);
  every(5000, refreshTimeNetwork);
  every(5000, refreshZones);
}
void start();
