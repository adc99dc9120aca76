// table.js: tables: query with $filter, and edit one entity under the
// ETag it was read with (If-Match), so that a change someone else made in
// between comes back as 412 UpdateConditionNotMet and is shown as such.
import { send, h, show, errorBox, okBox, etag, seg, crumbs, pretty, createForm, nameList } from './wire.js';

const json = { Accept: 'application/json;odata=minimalmetadata' };
const href = (t, pk, rk) => `#/table/${encodeURIComponent(t)}` + (pk !== undefined ? `/${encodeURIComponent(pk)}/${encodeURIComponent(rk)}` : '');
// key quotes a key for an entity path: quotes doubled, then escaped.
const key = (s) => encodeURIComponent(s.replace(/'/g, "''"));
const entityPath = (t, pk, rk) => `${seg(t)}(PartitionKey='${key(pk)}',RowKey='${key(rk)}')`;

async function listTables() {
  const out = [];
  let next = '';
  do {
    const resp = await send('table', 'Tables', { headers: json, query: next ? { NextTableName: next } : {} });
    for (const t of (await resp.json()).value) out.push(t.TableName);
    next = resp.headers.get('x-ms-continuation-NextTableName') || '';
  } while (next);
  return out;
}

export async function listTop() {
  return (await listTables()).map((name) => ({ name, href: href(name) }));
}

export async function render(main, parts) {
  if (parts.length === 0) return tablesView(main);
  if (parts.length >= 3) return entityView(main, parts[0], parts[1], parts[2]);
  return tableView(main, parts[0]);
}

async function tablesView(main) {
  const { form, status } = createForm('table', (name) => send('table', 'Tables', { method: 'POST', headers: { ...json, 'Content-Type': 'application/json', Prefer: 'return-no-content' }, body: JSON.stringify({ TableName: name }) }), href);
  const names = await listTables();
  show(main, crumbs(['Overview', '#/'], 'Tables'), h('h1', {}, 'Tables'), form, status,
    nameList('Name', names, href, 'No tables.'));
}

// userProps are an entity's own properties, without the OData
// annotations the service adds.
const userProps = (e) => Object.keys(e).filter((k) => !k.startsWith('odata.') && !k.includes('@odata.') && k !== 'PartitionKey' && k !== 'RowKey' && k !== 'Timestamp');

async function tableView(main, tableName) {
  const filter = h('input', { class: 'wide', id: 'table-filter', placeholder: "$filter, e.g. PartitionKey eq 'p1' and Price gt 10" });
  const top = h('input', { id: 'table-top', size: 5, value: '100', 'aria-label': '$top' });
  const status = h('div');
  const thead = h('thead');
  const tbody = h('tbody');
  const more = h('div', { class: 'row' });
  let continuation = null;

  async function run(append) {
    const query = { $top: top.value || '100' };
    if (filter.value.trim()) query.$filter = filter.value.trim();
    if (append && continuation) Object.assign(query, continuation);
    let resp;
    try {
      resp = await send('table', `${seg(tableName)}()`, { headers: json, query });
    } catch (err) { show(status, errorBox(err)); return; }
    show(status);
    const entities = (await resp.json()).value;
    const npk = resp.headers.get('x-ms-continuation-NextPartitionKey');
    continuation = npk ? { NextPartitionKey: npk, NextRowKey: resp.headers.get('x-ms-continuation-NextRowKey') || '' } : null;
    const cols = [...new Set(entities.flatMap(userProps))].slice(0, 8);
    show(thead, h('tr', {}, ['PartitionKey', 'RowKey', ...cols, 'Timestamp', 'ETag', ''].map((c) => h('th', {}, c))));
    const rows = entities.map((e) => h('tr', { 'data-pk': e.PartitionKey, 'data-rk': e.RowKey },
      h('td', {}, e.PartitionKey), h('td', {}, e.RowKey), cols.map((c) => h('td', {}, e[c] === undefined ? '' : String(e[c]))),
      h('td', {}, e.Timestamp || ''), h('td', {}, etag(e['odata.etag'])),
      h('td', { class: 'actions' }, h('a', { href: href(tableName, e.PartitionKey, e.RowKey) }, 'Edit'))));
    if (append) tbody.append(...rows);
    else show(tbody, rows.length ? rows : h('tr', {}, h('td', { colspan: cols.length + 5, class: 'muted' }, 'No entities match.')));
    show(more, continuation ? h('button', { onclick: () => run(true) }, 'More') : null);
  }

  show(main, crumbs(['Overview', '#/'], ['Tables', '#/table'], tableName), h('h1', {}, tableName),
    h('form', { class: 'row', onsubmit: (e) => { e.preventDefault(); run(false); } },
      h('label', { for: 'table-filter' }, '$filter'), filter, h('label', {}, '$top'), top, h('button', { class: 'primary', id: 'table-query' }, 'Query')),
    newEntityForm(tableName),
    status, h('table', { class: 'list', id: 'entity-list' }, thead, tbody), more);
  await run(false);
}

function newEntityForm(tableName) {
  const body = h('textarea', { class: 'json', 'aria-label': 'new entity' }, pretty({ PartitionKey: '', RowKey: '' }));
  const status = h('div');
  const details = h('details', { class: 'panel' }, h('summary', {}, 'Insert an entity'),
    h('form', { onsubmit: async (e) => {
      e.preventDefault();
      try {
        const ent = JSON.parse(body.value);
        const resp = await send('table', seg(tableName), { method: 'POST', headers: { ...json, 'Content-Type': 'application/json', Prefer: 'return-no-content' }, body: JSON.stringify(ent) });
        show(status, okBox('Inserted, ETag ', etag(resp.headers.get('ETag')), ' ', h('a', { href: href(tableName, ent.PartitionKey, ent.RowKey) }, 'Edit')));
      } catch (err) { show(status, errorBox(err, { what: 'the entity' })); }
    } }, body, h('div', { class: 'row' }, h('button', { class: 'primary' }, 'Insert'))), status);
  return details;
}

// entityView edits one entity. The ETag it was read with goes with the
// save as If-Match; a 412 is a conflict, with a reload.
async function entityView(main, tableName, pk, rk) {
  const path = entityPath(tableName, pk, rk);
  const status = h('div', { id: 'entity-status' });
  const tagBox = h('span', { id: 'entity-etag' });
  const editor = h('textarea', { class: 'json', id: 'entity-json', 'aria-label': 'entity properties (JSON)', spellcheck: 'false' });
  let loadedTag = '';

  async function load() {
    const resp = await send('table', path, { headers: json });
    const ent = await resp.json();
    loadedTag = resp.headers.get('ETag') || ent['odata.etag'];
    const editable = {};
    for (const [k, v] of Object.entries(ent)) {
      if (k.startsWith('odata.') || k === 'Timestamp' || k === 'Timestamp@odata.type') continue;
      editable[k] = v;
    }
    editor.value = pretty(editable);
    show(tagBox, 'Loaded ETag ', etag(loadedTag), ent.Timestamp ? h('span', { class: 'muted' }, ` · Timestamp ${ent.Timestamp}`) : '');
  }

  async function save(e) {
    e.preventDefault();
    let body;
    try {
      body = JSON.parse(editor.value);
    } catch (err) { show(status, errorBox(new Error(`The entity is not valid JSON: ${err.message}`))); return; }
    try {
      const resp = await send('table', path, { method: 'PUT', headers: { ...json, 'Content-Type': 'application/json', 'If-Match': loadedTag }, body: JSON.stringify(body) });
      loadedTag = resp.headers.get('ETag');
      show(tagBox, 'Saved, new ETag ', etag(loadedTag));
      show(status, okBox('Saved.'));
    } catch (err) {
      show(status, errorBox(err, { what: 'the entity', onReload: async () => {
        try { await load(); show(status, okBox('Reloaded the latest version; your edits were discarded.')); } catch (e2) { show(status, errorBox(e2)); }
      } }));
    }
  }

  async function remove() {
    if (!confirm(`Delete ${pk} / ${rk}?`)) return;
    try {
      await send('table', path, { method: 'DELETE', headers: { ...json, 'If-Match': loadedTag } });
      location.hash = href(tableName);
    } catch (err) { show(status, errorBox(err, { what: 'the entity', onReload: load })); }
  }

  show(main, crumbs(['Overview', '#/'], ['Tables', '#/table'], [tableName, href(tableName)], `${pk} / ${rk}`),
    h('h1', {}, `${pk} / ${rk}`), h('p', {}, tagBox),
    h('form', { onsubmit: save, class: 'panel', id: 'entity-form' }, editor,
      h('div', { class: 'row' }, h('button', { class: 'primary', id: 'entity-save' }, 'Save (If-Match)'),
        h('button', { type: 'button', onclick: () => load().then(() => show(status), (err) => show(status, errorBox(err))) }, 'Reload'),
        h('button', { type: 'button', class: 'danger', onclick: remove }, 'Delete'))),
    status);
  await load();
}
