// Tributary web console: plain DOM, no framework, no build step. It calls the REST API of docs/SPEC.md section 2 with
// the user's token (sessionStorage, sent as "Authorization: Bearer"); the server serves this file as it is.
'use strict';

(function () {
  // The API lives beside the console: <prefix>/console/ -> <prefix>/api (a stage or path prefix keeps working).
  const API = location.pathname.replace(/\/console(\/.*)?$/, '') + '/api';
  const STREAMS = API + '/2.0/feature-engineering/streams';
  const REFRESH_MS = 5000;
  const PAGE = 1000; // the list API's largest page
  const MAX_PAGES = 20;

  const view = document.getElementById('view');
  const banner = document.getElementById('banner');
  let timer = null;
  let generation = 0; // a route change makes pending refreshes of the previous page drop their result

  // ---- settings: token per browser session, catalog remembered ----
  const tokenInput = document.getElementById('token');
  const catalogInput = document.getElementById('catalog');
  const schemaInput = document.getElementById('schema');
  tokenInput.value = sessionStorage.getItem('tributary.token') || '';
  catalogInput.value = localStorage.getItem('tributary.catalog') || 'main';
  schemaInput.value = localStorage.getItem('tributary.schema') || '';
  document.getElementById('auth').addEventListener('submit', e => {
    e.preventDefault();
    sessionStorage.setItem('tributary.token', tokenInput.value.trim());
    route();
  });
  document.getElementById('scope').addEventListener('submit', e => {
    e.preventDefault();
    localStorage.setItem('tributary.catalog', catalogInput.value.trim());
    localStorage.setItem('tributary.schema', schemaInput.value.trim());
    if (location.hash !== '#/' && location.hash !== '') location.hash = '#/'; else route();
  });

  // ---- API ----
  class ApiError extends Error {
    constructor(status, body) {
      super((body && body.message) || ('HTTP ' + status));
      this.status = status;
      this.code = body && body.error_code;
    }
  }

  async function api(method, path, body) {
    const headers = {'Accept': 'application/json'};
    const token = sessionStorage.getItem('tributary.token');
    if (token) headers['Authorization'] = 'Bearer ' + token;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
    const text = await res.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
    if (!res.ok) {
      if (res.status === 401) showBanner('Not signed in: enter a token (' + ((json && json.message) || 'HTTP 401') + ')');
      throw new ApiError(res.status, json);
    }
    hideBanner();
    return json;
  }

  function showBanner(text) { banner.textContent = text; banner.hidden = false; }
  function hideBanner() { banner.hidden = true; }

  // ---- formatting ----
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    if (attrs) for (const k in attrs) {
      if (attrs[k] === undefined || attrs[k] === null) continue;
      if (k === 'class') e.className = attrs[k];
      else if (k === 'text') e.textContent = attrs[k];
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), attrs[k]);
      else e.setAttribute(k, attrs[k]);
    }
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }
  // Thousands separators by hand: Intl's toLocaleString costs more than the rest of a row.
  const num = n => (n === undefined || n === null) ? '—' : String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  function age(iso, now) {
    if (!iso) return '—';
    const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
    if (s < 60) return s + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
    if (s < 86400) return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
    return Math.floor(s / 86400) + ' d ' + Math.floor((s % 86400) / 3600) + ' h';
  }
  function lagOf(status) {
    const parts = status && status.partitions;
    if (!parts || !parts.length) return null;
    let sum = 0, known = false;
    for (const p of parts) if (typeof p.lag === 'number') { sum += p.lag; known = true; }
    return known ? sum : null;
  }
  function stateBadge(state) {
    const known = state === 'RUNNING' || state === 'STALLED' || state === 'FAILED';
    return el('span', {class: 'state ' + (known ? 'state-' + state : 'state-other'), 'data-state': state || '', text: state || '?'});
  }
  function clearTimer() { if (timer) { clearTimeout(timer); timer = null; } }
  function schedule(fn, gen) {
    clearTimer();
    timer = setTimeout(() => { if (gen === generation) fn(); }, REFRESH_MS);
  }

  // ---- stream list ----
  const LIST_COLUMNS = [
    ['name', 'name'], ['state', 'state'], ['lag', 'lag', 'num'], ['freshness', 'freshness', 'num'],
    ['rows', 'rows', 'num'], ['decode failures', 'decode', 'num'], ['rescued', 'rescued', 'num'],
    ['backfill', 'backfill'], ['last commit', 'commit', 'num'], ['message', 'message']];

  async function fetchAllStreams(catalog, schema) {
    let streams = [], token = null, pages = 0;
    do {
      let q = '?catalog_name=' + encodeURIComponent(catalog) + '&max_results=' + PAGE;
      if (schema) q += '&schema_name=' + encodeURIComponent(schema);
      if (token) q += '&page_token=' + encodeURIComponent(token);
      const page = await api('GET', STREAMS + q);
      streams = streams.concat(page.streams || []);
      token = page.next_page_token;
      pages++;
    } while (token && pages < MAX_PAGES);
    return {streams, more: !!token};
  }

  // One row per stream, built detached and put in place in one step: 1,000 rows render in a few tens of ms.
  function streamRow(s, now) {
    const st = s.ingestion_status || {};
    const bf = s.backfill_status || {};
    const tr = document.createElement('tr');
    tr.dataset.name = s.name;
    if (s.state === 'STALLED') tr.className = 'stalled';
    else if (s.state === 'FAILED') tr.className = 'failed';
    const link = document.createElement('a');
    link.href = '#/stream/' + encodeURIComponent(s.name);
    link.textContent = s.name;
    const cells = [
      link, stateBadge(s.state), num(lagOf(st)),
      st.valid_through ? age(st.valid_through, now) : '—',
      num(st.rows_ingested), num(st.decode_failures),
      st.rescued_records === undefined ? '—' : num(st.rescued_records),
      null, age(st.last_commit_at, now), s.state_message || ''];
    for (let i = 0; i < cells.length; i++) {
      const td = document.createElement('td');
      td.dataset.col = LIST_COLUMNS[i][1];
      if (LIST_COLUMNS[i][2]) td.className = 'num';
      if (i === 7) {
        const state = bf.state || 'NOT_CONFIGURED';
        td.className = 'bf-' + state;
        td.textContent = state === 'COMPLETED' ? 'COMPLETED (' + num(bf.rows_merged) + ' rows)' : state;
      } else if (i === 3 && st.valid_through) {
        td.title = 'valid through ' + st.valid_through;
        td.textContent = cells[i];
      } else if (i === 9) {
        td.className = 'msg';
        td.textContent = cells[i];
        if (cells[i]) td.title = cells[i];
      } else if (typeof cells[i] === 'string') {
        td.textContent = cells[i];
      } else {
        td.append(cells[i]);
      }
      tr.append(td);
    }
    return tr;
  }

  function renderList(streams, more, tbody, summary) {
    const t0 = performance.now();
    const now = Date.now();
    const frag = document.createDocumentFragment();
    let stalled = 0, failed = 0;
    for (const s of streams) {
      if (s.state === 'STALLED') stalled++;
      if (s.state === 'FAILED') failed++;
      frag.append(streamRow(s, now));
    }
    tbody.replaceChildren(frag);
    summary.replaceChildren(
      el('span', {id: 'stream-count', text: streams.length + (more ? '+' : '') + ' streams'}),
      el('span', {text: stalled + ' stalled'}), el('span', {text: failed + ' failed'}),
      el('span', {text: 'refreshed ' + new Date(now).toLocaleTimeString()}));
    // Measured by the browser test (src/test/console): building and placing the rows, then the layout they cause.
    const built = performance.now() - t0;
    void tbody.offsetHeight;
    window.consoleRender = {rows: streams.length, buildMs: built, totalMs: performance.now() - t0};
  }

  // The list API leaves rescued_records out (counting them reads each table's log); a stream with rescue on gets its
  // count from GET of the stream, a few at a time, after the rows are on screen.
  async function fillRescued(streams, tbody, gen) {
    const todo = streams.filter(s => s.ingestion_config && s.ingestion_config.rescue_undecodable === true
      && (s.ingestion_status || {}).rescued_records === undefined);
    const worker = async () => {
      for (let s = todo.shift(); s && gen === generation; s = todo.shift()) {
        try {
          const one = await api('GET', STREAMS + '/' + encodeURIComponent(s.name));
          const count = ((one && one.ingestion_status) || {}).rescued_records;
          const td = Array.from(tbody.children).find(tr => tr.dataset.name === s.name);
          if (count !== undefined && td) td.querySelector('td[data-col="rescued"]').textContent = num(count);
        } catch (e) {
          // The cell keeps its dash; the stream's page shows the error.
        }
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
  }

  function listPage() {
    const gen = generation;
    const catalog = (localStorage.getItem('tributary.catalog') || catalogInput.value || 'main').trim();
    const schema = (localStorage.getItem('tributary.schema') || '').trim();
    const summary = el('p', {class: 'summary'}, 'loading…');
    const thead = el('thead', null, el('tr', null, ...LIST_COLUMNS.map(c => el('th', {class: c[2] || null, text: c[0]}))));
    const tbody = el('tbody', {id: 'streams'});
    // Fixed column widths: the browser lays out 1,000 rows without measuring every cell first.
    const colgroup = el('colgroup', null, ...LIST_COLUMNS.map(c => el('col', {class: 'col-' + c[1]})));
    view.replaceChildren(
      el('h1', {text: 'Streams in ' + catalog + (schema ? '.' + schema : '')}),
      summary, el('table', {id: 'stream-table', class: 'fixed'}, colgroup, thead, tbody));
    const load = async () => {
      try {
        const asked = performance.now();
        const {streams, more} = await fetchAllStreams(catalog, schema);
        if (gen !== generation) return;
        const fetched = performance.now();
        renderList(streams, more, tbody, summary);
        window.consoleRender.fetchMs = fetched - asked;
        window.consoleRender.requestToRowsMs = performance.now() - asked;
        fillRescued(streams, tbody, gen);
      } catch (e) {
        if (gen !== generation) return;
        summary.replaceChildren(el('span', {class: 'form-error', text: e.message}));
      }
      if (!document.hidden) schedule(load, gen); else document.addEventListener('visibilitychange', () => load(), {once: true});
    };
    load();
  }

  // ---- one stream ----
  function schemaText(side) {
    if (!side) return null;
    const text = side.json_schema || side.avro_schema || (side.proto_schema && side.proto_schema.schema_text);
    if (!text) return JSON.stringify(side, null, 2);
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; }
  }

  function card(k, v, id) {
    return el('div', {class: 'card'}, el('div', {class: 'k', text: k}), el('div', {class: 'v', id: id, text: v}));
  }

  function chart(perMinute) {
    const NS = 'http://www.w3.org/2000/svg';
    const W = 1200, H = 200, L = 60, B = 22, T = 12; // scaled as a whole (viewBox), so the labels keep their shape
    const svg = document.createElementNS(NS, 'svg');
    svg.setAttribute('class', 'chart');
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    const max = Math.max(1, ...perMinute.map(m => m.rows));
    const bw = (W - L - 10) / Math.max(1, perMinute.length);
    const text = (x, y, s, anchor) => {
      const t = document.createElementNS(NS, 'text');
      t.setAttribute('x', x); t.setAttribute('y', y); t.setAttribute('text-anchor', anchor || 'start');
      t.textContent = s; svg.append(t);
    };
    perMinute.forEach((m, i) => {
      const h = (H - B - T) * m.rows / max;
      const r = document.createElementNS(NS, 'rect');
      r.setAttribute('class', 'bar');
      r.setAttribute('x', L + i * bw + 0.5); r.setAttribute('width', Math.max(1, bw - 1));
      r.setAttribute('y', H - B - h); r.setAttribute('height', h);
      const tip = document.createElementNS(NS, 'title');
      tip.textContent = m.minute + ': ' + m.rows + ' rows in ' + m.commits + ' commits';
      r.append(tip); svg.append(r);
    });
    text(L - 4, T + 8, num(max), 'end'); text(L - 4, H - B, '0', 'end');
    if (perMinute.length) {
      const hhmm = iso => iso.substring(11, 16);
      text(L, H - 6, hhmm(perMinute[0].minute) + ' UTC');
      text(W - 10, H - 6, hhmm(perMinute[perMinute.length - 1].minute) + ' UTC', 'end');
    }
    return svg;
  }

  function table(headers, rows, id) {
    return el('table', {id: id}, el('thead', null, el('tr', null, ...headers.map(h => el('th', {text: h})))),
      el('tbody', null, ...rows.map(r => el('tr', null, ...r.map(c => el('td', {text: c}))))));
  }

  async function rescuedSection(name) {
    const box = el('div', {id: 'rescued'});
    try {
      const page = await api('GET', STREAMS + '/' + encodeURIComponent(name) + '/rescued?max_results=50');
      const recs = (page && page.rescued_records) || [];
      if (!recs.length) box.append(el('p', {class: 'absent', text: 'No rescued records.'}));
      else box.append(table(['topic', 'partition', 'offset', 'timestamp', 'error', 'key (base64)', 'value (base64)'],
        recs.map(r => [r.topic, String(r.partition), String(r.offset), r.timestamp || '', r.error || '',
          (r.key_base64 || '').slice(0, 40), (r.value_base64 || '').slice(0, 60)]), 'rescued-table'));
      if (page && page.next_page_token) box.append(el('p', {class: 'hint', text: 'first 50 shown'}));
    } catch (e) {
      // A server without rescued records answers 404 for the path; a stream without rescue may refuse it.
      box.append(el('p', {class: 'absent', text: e.status === 404 ? 'Rescue not enabled (the server has no rescued records for this stream).' : e.message}));
    }
    return box;
  }

  async function historySection(name) {
    const box = el('div', {id: 'history'});
    try {
      const h = await api('GET', STREAMS + '/' + encodeURIComponent(name) + '/history?minutes=60');
      const total = h.rows_per_minute.reduce((a, m) => a + m.rows, 0);
      box.append(chart(h.rows_per_minute),
        el('p', {class: 'hint', id: 'history-total', text: num(total) + ' rows in the last ' + h.minutes + ' minutes' + (h.complete ? '' : ' (older commits not read)')}));
    } catch (e) {
      box.append(el('p', {class: 'absent', text: e.status === 404 ? 'No history on this server.' : e.message}));
    }
    return box;
  }

  async function columnsSection(tableName) {
    const box = el('div', {id: 'columns'});
    try {
      const t = await api('GET', API + '/2.1/unity-catalog/tables/' + encodeURIComponent(tableName));
      box.append(table(['column', 'type', 'nullable'], (t.columns || []).map(c => [c.name, c.type_text || c.type_name || '', String(c.nullable !== false)]), 'columns-table'));
    } catch (e) {
      box.append(el('p', {class: 'absent', text: e.message}));
    }
    return box;
  }

  function streamPage(name) {
    const gen = generation;
    const head = el('div');
    const body = el('div');
    view.replaceChildren(el('p', null, el('a', {href: '#/', text: '← streams'})), head, body);
    let first = true;
    const load = async () => {
      let s;
      try {
        s = await api('GET', STREAMS + '/' + encodeURIComponent(name));
      } catch (e) {
        if (gen !== generation) return;
        head.replaceChildren(el('h1', {text: name}), el('p', {class: 'form-error', text: e.message}));
        return;
      }
      if (gen !== generation) return;
      const st = s.ingestion_status || {};
      const bf = s.backfill_status || {};
      const now = Date.now();
      head.replaceChildren(
        el('h1', null, s.name + ' ', stateBadge(s.state)),
        s.state_message ? el('p', {class: 'msg', id: 'state-message', text: s.state_message}) : '',
        el('div', {class: 'grid'},
          card('lag', num(lagOf(st)), 'stream-lag'),
          card('freshness (valid through)', st.valid_through ? age(st.valid_through, now) : '—', 'stream-freshness'),
          card('rows', num(st.rows_ingested), 'stream-rows'),
          card('decode failures', num(st.decode_failures)),
          card('rescued records', st.rescued_records === undefined ? '—' : num(st.rescued_records)),
          card('table version', num(st.table_version)),
          card('last commit', age(st.last_commit_at, now)),
          card('backfill', bf.state || 'NOT_CONFIGURED', 'stream-backfill')));
      const parts = (st.partitions || []).map(p => [p.topic, String(p.partition), num(p.committed_offset),
        num(p.lag), p.last_commit_at ? age(p.last_commit_at, now) + ' ago' : '—']);
      // A direct stream (SPEC §11) has producers, each with its last committed sequence, instead of partitions.
      const direct = !!(s.source_config && s.source_config.direct_source_config);
      const producers = (st.producers || []).map(p => [p.producer_id, num(p.committed_sequence),
        p.last_commit_at ? age(p.last_commit_at, now) + ' ago' : '—']);
      const partsBox = direct
        ? el('div', {id: 'partitions'}, producers.length ? table(['producer', 'committed sequence', 'last commit'], producers, 'producers-table')
          : el('p', {class: 'absent', text: 'No producer has pushed yet.'}))
        : el('div', {id: 'partitions'}, parts.length ? table(['topic', 'partition', 'next offset', 'lag', 'last commit'], parts, 'partitions-table')
          : el('p', {class: 'absent', text: 'No partitions yet.'}));
      if (first) {
        first = false;
        const schemas = (s.schema_config && (s.schema_config.direct_schemas || s.schema_config.schema_registry_config)) || {};
        const ing = s.ingestion_config || {};
        const tableName = ing.ingestion_destination && ing.ingestion_destination.delta_table_name;
        body.replaceChildren(
          el('h2', {text: direct ? 'Producers' : 'Partitions'}), partsBox,
          el('h2', {text: 'Rows ingested per minute'}), el('div', {id: 'history-slot'}),
          el('h2', {text: 'Schemas'}),
          el('div', {class: 'cols'},
            el('div', null, el('div', {class: 'k', text: 'key'}), el('pre', {id: 'key-schema', text: schemaText(schemas.key_schema || schemas.key_schema_locator) || '(plain string)'})),
            el('div', null, el('div', {class: 'k', text: 'value'}), el('pre', {id: 'value-schema', text: schemaText(schemas.payload_schema || schemas.payload_schema_locator) || '(plain string)'}))),
          el('h2', {text: 'Table ' + (tableName || '')}), el('div', {id: 'columns-slot'}),
          el('h2', {text: 'Rescued records'}), el('div', {id: 'rescued-slot'}),
          el('h2', {text: 'Definition'}), el('pre', {text: JSON.stringify({source_config: s.source_config, connection_config: s.connection_config, ingestion_config: s.ingestion_config, created_by: s.created_by, created_at: s.created_at}, null, 2)}),
          el('div', {class: 'actions'}, el('button', {class: 'danger', id: 'delete', onclick: () => deleteStream(s.name)}, 'delete stream')));
        historySection(s.name).then(b => document.getElementById('history-slot') && document.getElementById('history-slot').replaceChildren(b));
        if (tableName) columnsSection(tableName).then(b => document.getElementById('columns-slot') && document.getElementById('columns-slot').replaceChildren(b));
        rescuedSection(s.name).then(b => document.getElementById('rescued-slot') && document.getElementById('rescued-slot').replaceChildren(b));
      } else {
        const old = document.getElementById('partitions');
        if (old) old.replaceWith(partsBox);
      }
      schedule(load, gen);
    };
    load();
  }

  async function deleteStream(name) {
    if (!confirm('Delete stream ' + name + '? Its pipeline stops and its ingestion table (files and log) is deleted.')) return;
    try {
      await api('DELETE', STREAMS + '/' + encodeURIComponent(name));
      location.hash = '#/';
    } catch (e) {
      showBanner('Delete failed: ' + e.message);
    }
  }

  // ---- create ----
  // Each input names the request field it fills (data-field); an API error whose message starts with a field path is
  // shown under the input whose field is the longest prefix of that path.
  function row(labelText, field, input, hint) {
    input.dataset.field = field;
    return el('div', {class: 'row', 'data-row': field}, el('label', {text: labelText}),
      el('div', null, input, hint ? el('div', {class: 'hint', text: hint}) : null));
  }

  function createPage() {
    const catalog = (localStorage.getItem('tributary.catalog') || 'main').trim();
    const f = {
      name: el('input', {type: 'text', name: 'name', placeholder: catalog + '.schema.stream'}),
      mode: el('select', {name: 'mode'}, el('option', {value: 'subscribe', text: 'subscribe'}),
        el('option', {value: 'subscribe_pattern', text: 'subscribe_pattern'}), el('option', {value: 'assign', text: 'assign'})),
      topics: el('input', {type: 'text', name: 'topics', placeholder: 'tx-eu,tx-us'}),
      connection: el('input', {type: 'text', name: 'connection', list: 'connections', placeholder: 'my-kafka-connection'}),
      valueFormat: el('select', {name: 'value_format'}, ...['json_schema', 'avro_schema', 'proto_schema', 'none'].map(v => el('option', {value: v, text: v}))),
      valueSchema: el('textarea', {name: 'value_schema', placeholder: '{"type": "object", "properties": {...}}'}),
      valueMessage: el('input', {type: 'text', name: 'value_message', placeholder: 'message_name (Protobuf only)'}),
      keyFormat: el('select', {name: 'key_format'}, ...['none', 'json_schema', 'avro_schema', 'proto_schema'].map(v => el('option', {value: v, text: v}))),
      keySchema: el('textarea', {name: 'key_schema', placeholder: '(plain string)'}),
      keyMessage: el('input', {type: 'text', name: 'key_message', placeholder: 'message_name (Protobuf only)'}),
      table: el('input', {type: 'text', name: 'table', placeholder: '<name>_ingestion'}),
      backfill: el('input', {type: 'text', name: 'backfill', placeholder: '(none)'}),
      dedup: el('input', {type: 'text', name: 'dedup', placeholder: 'value.transaction_id, kafka_partition'}),
      rescue: el('input', {type: 'checkbox', name: 'rescue'})
    };
    const formError = el('div', {class: 'form-error', id: 'form-error'});
    const valueBox = el('div', {class: 'inline'}, f.valueFormat, f.valueMessage);
    const keyBox = el('div', {class: 'inline'}, f.keyFormat, f.keyMessage);
    const connections = el('datalist', {id: 'connections'});
    api('GET', API + '/2.0/connections').then(r => {
      for (const c of (r && r.connections) || []) connections.append(el('option', {value: c.name}));
    }).catch(() => {});
    const form = el('form', {class: 'create', id: 'create-form', novalidate: ''},
      formError, connections,
      row('name', 'name', f.name, 'catalog.schema.stream'),
      row('subscription', 'source_config.kafka_stream_config.subscription_mode', el('div', {class: 'inline'}, f.mode, f.topics)),
      row('connection', 'connection_config', f.connection, 'a connection created with POST /api/2.0/connections'),
      row('value schema format', 'schema_config.direct_schemas.payload_schema.format', valueBox),
      row('value schema', 'schema_config.direct_schemas.payload_schema', f.valueSchema),
      row('key schema format', 'schema_config.direct_schemas.key_schema.format', keyBox),
      row('key schema', 'schema_config.direct_schemas.key_schema', f.keySchema),
      row('ingestion table', 'ingestion_config.ingestion_destination', f.table),
      row('backfill source', 'ingestion_config.backfill_source', f.backfill, 'optional Delta table merged in once'),
      row('deduplication columns', 'ingestion_config.deduplication_columns', f.dedup, 'optional, comma-separated'),
      row('rescue undecodable', 'ingestion_config.rescue_undecodable', f.rescue, 'keep the bytes of records that do not decode (if the server supports it)'),
      el('div', {class: 'actions'}, el('button', {type: 'submit', id: 'create-submit'}, 'create stream'),
        el('a', {href: '#/', text: 'cancel'})));
    f.name.addEventListener('input', () => { f.table.placeholder = (f.name.value || '<name>') + '_ingestion'; });
    form.addEventListener('submit', async e => {
      e.preventDefault();
      clearErrors(form);
      const side = (format, text, message) => {
        if (format === 'none') return undefined;
        if (format === 'proto_schema') return {proto_schema: {schema_text: text, message_name: message}};
        return {[format]: text};
      };
      const direct = {};
      const payload = side(f.valueFormat.value, f.valueSchema.value, f.valueMessage.value.trim());
      const key = side(f.keyFormat.value, f.keySchema.value, f.keyMessage.value.trim());
      if (payload) direct.payload_schema = payload;
      if (key) direct.key_schema = key;
      const name = f.name.value.trim();
      const ingestion = {ingestion_destination: {delta_table_name: f.table.value.trim() || (name + '_ingestion')}};
      if (f.backfill.value.trim()) ingestion.backfill_source = {delta_table_name: f.backfill.value.trim()};
      const dedup = f.dedup.value.split(',').map(s => s.trim()).filter(Boolean);
      if (dedup.length) ingestion.deduplication_columns = dedup;
      if (f.rescue.checked) ingestion.rescue_undecodable = true; // sent only when asked: unknown fields are refused
      const body = {
        name,
        source_config: {kafka_stream_config: {subscription_mode: {[f.mode.value]: f.topics.value.trim()}}},
        connection_config: {uc_connection_name: f.connection.value.trim()},
        schema_config: {direct_schemas: direct},
        ingestion_config: ingestion
      };
      const submit = document.getElementById('create-submit');
      submit.disabled = true;
      try {
        const created = await api('POST', STREAMS, body);
        location.hash = '#/stream/' + encodeURIComponent(created.name);
      } catch (err) {
        showFieldError(form, err, formError);
      } finally {
        submit.disabled = false;
      }
    });
    view.replaceChildren(el('h1', {text: 'New stream'}), form);
  }

  function clearErrors(form) {
    form.querySelectorAll('.field-error').forEach(n => n.remove());
    form.querySelectorAll('.has-error').forEach(n => n.classList.remove('has-error'));
    document.getElementById('form-error').textContent = '';
  }

  // "schema_config.direct_schemas.payload_schema.json_schema: is not valid JSON ..." -> the payload schema's row.
  function showFieldError(form, err, formError) {
    const m = /^([a-z_][a-z0-9_]*(?:(?:\.|\[)[a-z0-9_\]]+)*)\s*:/i.exec(err.message || '');
    const path = m ? m[1].replace(/\[\d+\]/g, '') : null;
    let best = null;
    if (path) {
      for (const r of form.querySelectorAll('[data-row]')) {
        const field = r.dataset.row;
        if ((path === field || path.startsWith(field + '.')) && (!best || field.length > best.dataset.row.length)) best = r;
      }
      // A field of the subscription or the ingestion table names a deeper path than the row.
      if (!best && path.startsWith('source_config')) best = form.querySelector('[data-row="source_config.kafka_stream_config.subscription_mode"]');
      if (!best && path.startsWith('schema_config')) best = form.querySelector('[data-row="schema_config.direct_schemas.payload_schema"]');
    }
    const text = (err.code ? err.code + ': ' : '') + err.message;
    if (best) {
      best.classList.add('has-error');
      best.lastElementChild.append(el('div', {class: 'field-error', 'data-error-for': best.dataset.row, text}));
      const input = best.querySelector('input, textarea, select');
      if (input) input.focus();
    } else {
      formError.textContent = text;
    }
  }

  // ---- routing ----
  function route() {
    generation++;
    clearTimer();
    const h = location.hash || '#/';
    if (h.startsWith('#/stream/')) streamPage(decodeURIComponent(h.slice('#/stream/'.length)));
    else if (h === '#/create') createPage();
    else listPage();
  }
  window.addEventListener('hashchange', route);
  route();
})();
