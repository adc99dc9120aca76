// table.js: tables: query with $filter, and edit one entity, property by
// property with its EDM type, under the ETag it was read with (If-Match),
// so that a change someone else made in between comes back as 412
// UpdateConditionNotSatisfied and is shown as such.
import { send, h, show, errorBox, okBox, etag, seg, crumbs, createForm, nameList } from './wire.js';
import { parseExact } from './exactjson.js';
import { edmTypes, isUserProp, readEntity, valueText, writeEntity } from './edm.js';

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
const userProps = (e) => Object.keys(e).filter(isUserProp);

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
    const entities = parseExact(await resp.text()).value;
    const npk = resp.headers.get('x-ms-continuation-NextPartitionKey');
    continuation = npk ? { NextPartitionKey: npk, NextRowKey: resp.headers.get('x-ms-continuation-NextRowKey') || '' } : null;
    const cols = [...new Set(entities.flatMap(userProps))].slice(0, 8);
    show(thead, h('tr', {}, ['PartitionKey', 'RowKey', ...cols, 'Timestamp', 'ETag', ''].map((c) => h('th', {}, c))));
    const rows = entities.map((e) => h('tr', { 'data-pk': e.PartitionKey, 'data-rk': e.RowKey },
      h('td', {}, e.PartitionKey), h('td', {}, e.RowKey), cols.map((c) => h('td', {}, e[c] === undefined || e[c] === null ? '' : valueText(e[c]))),
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


// propertyEditor is the grid an entity is edited in, one row per
// property: its name, its EDM type (as Storage Explorer shows it) and its
// value as text. Each row keeps the type it was loaded with unless the
// user picks another. props() reads the rows back as [{name, type, text}].
function propertyEditor(initial) {
  const tbody = h('tbody');
  const addRow = ({ name = '', type = 'Edm.String', text = '' } = {}, focus = false) => {
    const nameIn = h('input', { value: name, 'aria-label': name ? `name of ${name}` : 'property name', class: 'prop-name', spellcheck: 'false' });
    const typeIn = h('select', { 'aria-label': name ? `type of ${name}` : 'property type', class: 'prop-type' },
      edmTypes.map((t) => h('option', { value: t, selected: t === type }, t.replace('Edm.', ''))));
    const valueIn = h('input', { value: text, 'aria-label': name ? `value of ${name}` : 'property value', class: 'prop-value mono', spellcheck: 'false' });
    const row = h('tr', { 'data-prop': name }, h('td', {}, nameIn), h('td', {}, typeIn), h('td', { class: 'wide' }, valueIn),
      h('td', { class: 'actions' }, h('button', { type: 'button', class: 'small danger', title: 'Remove this property', onclick: () => row.remove() }, 'Remove')));
    row.read = () => ({ name: nameIn.value.trim(), type: typeIn.value, text: valueIn.value });
    tbody.append(row);
    if (focus) nameIn.focus();
  };
  for (const p of initial) addRow(p);
  const element = h('div', { class: 'props' },
    h('table', { class: 'list', id: 'entity-props' },
      h('thead', {}, h('tr', {}, ['Property', 'Type', 'Value', ''].map((c) => h('th', {}, c)))), tbody),
    h('div', { class: 'row' }, h('button', { type: 'button', id: 'entity-add-prop', onclick: () => addRow({}, true) }, 'Add property')));
  return { element, props: () => Array.from(tbody.children, (r) => r.read()) };
}

function newEntityForm(tableName) {
  const pk = h('input', { 'aria-label': 'new PartitionKey', placeholder: 'PartitionKey' });
  const rk = h('input', { 'aria-label': 'new RowKey', placeholder: 'RowKey' });
  const editor = propertyEditor([]);
  const status = h('div');
  const details = h('details', { class: 'panel' }, h('summary', {}, 'Insert an entity'),
    h('form', { onsubmit: async (e) => {
      e.preventDefault();
      try {
        const body = writeEntity(pk.value, rk.value, editor.props());
        const resp = await send('table', seg(tableName), { method: 'POST', headers: { ...json, 'Content-Type': 'application/json', Prefer: 'return-no-content' }, body });
        show(status, okBox('Inserted, ETag ', etag(resp.headers.get('ETag')), ' ', h('a', { href: href(tableName, pk.value, rk.value) }, 'Edit')));
      } catch (err) { show(status, errorBox(err, { what: 'the entity' })); }
    } }, h('div', { class: 'row' }, h('label', {}, 'PartitionKey'), pk, h('label', {}, 'RowKey'), rk), editor.element,
    h('div', { class: 'row' }, h('button', { class: 'primary' }, 'Insert'))), status);
  return details;
}

// entityView edits one entity. The ETag it was read with goes with the
// save as If-Match; a 412 is a conflict, with a reload.
async function entityView(main, tableName, pk, rk) {
  const path = entityPath(tableName, pk, rk);
  const status = h('div', { id: 'entity-status' });
  const tagBox = h('span', { id: 'entity-etag' });
  const grid = h('div');
  let editor = null;
  let loadedTag = '';

  async function load() {
    const resp = await send('table', path, { headers: json });
    const ent = readEntity(await resp.text());
    loadedTag = resp.headers.get('ETag') || ent.etag;
    editor = propertyEditor(ent.props);
    show(grid, editor.element);
    show(tagBox, 'Loaded ETag ', etag(loadedTag), ent.Timestamp ? h('span', { class: 'muted' }, ` · Timestamp ${ent.Timestamp}`) : '');
  }

  async function save(e) {
    e.preventDefault();
    let body;
    try {
      body = writeEntity(pk, rk, editor.props());
    } catch (err) { show(status, errorBox(err)); return; }
    try {
      const resp = await send('table', path, { method: 'PUT', headers: { ...json, 'Content-Type': 'application/json', 'If-Match': loadedTag }, body });
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
    h('form', { onsubmit: save, class: 'panel', id: 'entity-form' },
      h('dl', { class: 'kv' }, h('dt', {}, 'PartitionKey'), h('dd', { class: 'mono' }, pk), h('dt', {}, 'RowKey'), h('dd', { class: 'mono' }, rk)),
      grid,
      h('div', { class: 'row' }, h('button', { class: 'primary', id: 'entity-save' }, 'Save (If-Match)'),
        h('button', { type: 'button', onclick: () => load().then(() => show(status), (err) => show(status, errorBox(err))) }, 'Reload'),
        h('button', { type: 'button', class: 'danger', onclick: remove }, 'Delete'))),
    status);
  await load();
}
