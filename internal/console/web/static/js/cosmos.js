// cosmos.js: Cosmos DB databases → containers → items: create databases,
// containers and items, run SQL, replace or delete an item under its
// _etag (If-Match), run a stored procedure with parameters and a
// partition key, and peek the change feed.
import { call, send, checked, h, show, errorBox, okBox, etag, seg, crumbs, createForm } from './wire.js';
import { parseExact, stringifyExact } from './exactjson.js';

const href = (...p) => '#/cosmos' + p.map((s) => '/' + encodeURIComponent(s)).join('');
const collPath = (db, coll) => `dbs/${seg(db)}/colls/${seg(coll)}`;

// feed reads every page of a feed (databases, containers, procedures).
async function feed(path, field) {
  const out = [];
  let cont = '';
  do {
    const resp = await send('cosmos', path, { headers: cont ? { 'x-ms-continuation': cont } : {} });
    out.push(...(await resp.json())[field]);
    cont = resp.headers.get('x-ms-continuation') || '';
  } while (cont);
  return out;
}

export async function listTop() {
  return (await feed('dbs', 'Databases')).map((d) => ({ name: d.id, href: href(d.id) }));
}

export async function render(main, parts) {
  if (parts.length === 0) return databasesView(main);
  if (parts.length === 1) return containersView(main, parts[0]);
  return containerView(main, parts[0], parts[1]);
}

const jsonBody = { 'Content-Type': 'application/json' };

async function databasesView(main) {
  const { form, status } = createForm('database', (id) => send('cosmos', 'dbs', { method: 'POST', headers: jsonBody, body: JSON.stringify({ id }) }), (id) => href(id));
  const dbs = await feed('dbs', 'Databases');
  show(main, crumbs(['Overview', '#/'], 'Cosmos DB'), h('h1', {}, 'Cosmos DB databases'), form, status,
    h('table', { class: 'list' }, h('thead', {}, h('tr', {}, ['Database', 'ETag'].map((t) => h('th', {}, t)))),
      h('tbody', {}, dbs.length ? dbs.map((d) => h('tr', {}, h('td', {}, h('a', { href: href(d.id) }, d.id)), h('td', {}, etag(d._etag))))
        : h('tr', {}, h('td', { colspan: 2, class: 'muted' }, 'No databases.')))));
}

async function containersView(main, db) {
  const colls = await feed(`dbs/${seg(db)}/colls`, 'DocumentCollections');
  const name = h('input', { placeholder: 'new container name', 'aria-label': 'container name' });
  const pk = h('input', { value: '/id', 'aria-label': 'partition key path', size: 16 });
  const status = h('div');
  const create = async (e) => {
    e.preventDefault();
    try {
      await send('cosmos', `dbs/${seg(db)}/colls`, { method: 'POST', headers: jsonBody,
        body: JSON.stringify({ id: name.value, partitionKey: { paths: [pk.value], kind: 'Hash' } }) });
      location.hash = href(db, name.value);
    } catch (err) { show(status, errorBox(err, { what: 'the container' })); }
  };
  show(main, crumbs(['Overview', '#/'], ['Cosmos DB', '#/cosmos'], db), h('h1', {}, db),
    h('form', { class: 'row', onsubmit: create }, name, h('label', {}, 'partition key'), pk, h('button', { class: 'primary' }, 'Create container')), status,
    h('table', { class: 'list' }, h('thead', {}, h('tr', {}, ['Container', 'Partition key', 'ETag'].map((t) => h('th', {}, t)))),
      h('tbody', {}, colls.length ? colls.map((c) => h('tr', {}, h('td', {}, h('a', { href: href(db, c.id) }, c.id)),
        h('td', { class: 'mono' }, (c.partitionKey?.paths || []).join(', ')), h('td', {}, etag(c._etag))))
        : h('tr', {}, h('td', { colspan: 3, class: 'muted' }, 'No containers.')))));
}

// systemProps are the properties Cosmos DB adds to an item; the console
// shows them after the item's own.
const systemProps = new Set(['_rid', '_self', '_etag', '_attachments', '_ts', '_lsn']);
const userFirst = (a, b) => systemProps.has(a) - systemProps.has(b);

// exact is an item (read by parseExact) as indented JSON, every number as
// the service wrote it (1.0 stays 1.0, 2^53+1 stays itself), its own
// properties before the system ones.
const exact = (item) => stringifyExact(item, 2, userFirst);

// pkOf is the partition key header value of item under the container's
// key paths: the values at each path, or [{}] where the item has none.
function pkOf(item, paths) {
  return stringifyExact(paths.map((p) => {
    let v = item;
    for (const part of p.split('/').filter(Boolean)) v = v == null ? undefined : v[part];
    return v === undefined ? {} : v;
  }), 0);
}

// pkKnown reports whether item carries a value at every key path.
function pkKnown(item, paths) {
  return paths.every((p) => {
    let v = item;
    for (const part of p.split('/').filter(Boolean)) v = v == null ? undefined : v[part];
    return v !== undefined;
  });
}

// parseLoose reads a JSON value (numbers exact), or takes the text as a
// string.
function parseLoose(text) {
  try { return parseExact(text); } catch { return text; }
}

async function containerView(main, db, coll) {
  const cpath = collPath(db, coll);
  const info = await (await send('cosmos', cpath)).json();
  const paths = info.partitionKey?.paths || [];
  const body = h('div');
  const tabs = { Items: itemsTab, 'Stored procedures': sprocsTab, 'Change feed': changeFeedTab };
  const bar = h('div', { class: 'tabs', role: 'tablist' });
  const open = (name) => {
    for (const b of bar.children) b.classList.toggle('active', b.textContent === name);
    body.replaceChildren();
    tabs[name](body, cpath, paths).catch((err) => show(body, errorBox(err)));
  };
  for (const name of Object.keys(tabs)) bar.append(h('button', { role: 'tab', onclick: () => open(name) }, name));
  show(main, crumbs(['Overview', '#/'], ['Cosmos DB', '#/cosmos'], [db, href(db)], coll),
    h('h1', {}, coll, ' ', etag(info._etag), h('span', { class: 'muted' }, ` · partition key ${paths.join(', ')}`)), bar, body);
  open('Items');
}

async function itemsTab(target, cpath, paths) {
  const sql = h('textarea', { id: 'cosmos-sql', class: 'mono', spellcheck: 'false', 'aria-label': 'SQL query' }, 'SELECT * FROM c');
  sql.style.minHeight = '70px';
  const status = h('div', { id: 'cosmos-status' });
  const tbody = h('tbody');
  const editor = h('div', { class: 'panel', id: 'cosmos-item' }, h('p', { class: 'muted' }, 'Select an item to edit it.'));
  const more = h('div', { class: 'row' });
  let cont = '';

  async function run(append) {
    const headers = {
      'Content-Type': 'application/query+json', 'x-ms-documentdb-isquery': 'True',
      'x-ms-documentdb-query-enablecrosspartition': 'True', 'x-ms-max-item-count': '100',
    };
    if (append && cont) headers['x-ms-continuation'] = cont;
    let resp;
    try {
      resp = await send('cosmos', `${cpath}/docs`, { method: 'POST', headers, body: JSON.stringify({ query: sql.value, parameters: [] }) });
    } catch (err) { show(status, errorBox(err)); return; }
    const docs = parseExact(await resp.text()).Documents;
    cont = resp.headers.get('x-ms-continuation') || '';
    show(status, h('p', { class: 'muted' }, `${docs.length} results · ${resp.headers.get('x-ms-request-charge') || 0} RU`));
    const rows = docs.map((d) => {
      // A result can be edited when it names an item: its id and
      // partition key are there (a projection may leave them out).
      const editable = d && typeof d === 'object' && typeof d.id === 'string' && pkKnown(d, paths);
      return h('tr', {},
        h('td', {}, editable ? h('a', { href: '#', onclick: (e) => { e.preventDefault(); open(d); } }, d.id) : (d?.id ?? '')),
        h('td', {}, d?._etag ? etag(d._etag) : ''),
        h('td', {}, h('pre', { class: 'json' }, exact(d))));
    });
    if (append) tbody.append(...rows);
    else show(tbody, rows.length ? rows : h('tr', {}, h('td', { colspan: 3, class: 'muted' }, 'No results.')));
    show(more, cont ? h('button', { onclick: () => run(true) }, 'More') : null);
  }

  // open reads the whole item (the result may be a projection) and edits
  // it.
  async function open(d) {
    try {
      const resp = await send('cosmos', `${cpath}/docs/${seg(d.id)}`, { headers: { 'x-ms-documentdb-partitionkey': pkOf(d, paths) } });
      edit(parseExact(await resp.text()));
    } catch (err) { show(editor, errorBox(err)); }
  }

  // edit replaces the item under the _etag it was read with. The text is
  // sent as edited (checked to be JSON, never re-encoded by the browser),
  // so an unchanged replace writes back the very numbers it read.
  function edit(item) {
    const text = h('textarea', { class: 'json', id: 'cosmos-item-json', spellcheck: 'false', 'aria-label': 'item (JSON)' }, exact(item));
    const st = h('div', { id: 'cosmos-item-status' });
    const path = `${cpath}/docs/${seg(item.id)}`;
    const reload = async () => {
      try {
        const resp = await send('cosmos', path, { headers: { 'x-ms-documentdb-partitionkey': pkOf(item, paths) } });
        edit(parseExact(await resp.text()));
        editor.append(okBox('Reloaded the latest version; your edits were discarded.'));
      } catch (err) { show(st, errorBox(err)); }
    };
    show(editor, h('h2', {}, item.id, ' ', etag(item._etag)), text,
      h('div', { class: 'row' }, h('button', { class: 'primary', id: 'cosmos-replace', onclick: async () => {
        try {
          const next = stringifyExact(parseExact(text.value), 0);
          const resp = await send('cosmos', path, { method: 'PUT', body: next, headers: {
            'Content-Type': 'application/json', 'If-Match': item._etag, 'x-ms-documentdb-partitionkey': pkOf(item, paths) } });
          edit(parseExact(await resp.text()));
          editor.append(okBox('Replaced.'));
        } catch (err) { show(st, errorBox(err, { what: 'the item', onReload: reload })); }
      } }, 'Replace (If-Match)'), h('button', { onclick: reload }, 'Reload'),
      h('button', { class: 'danger', id: 'cosmos-delete', onclick: async () => {
        if (!confirm(`Delete the item ${item.id}?`)) return;
        try {
          await send('cosmos', path, { method: 'DELETE', headers: { 'If-Match': item._etag, 'x-ms-documentdb-partitionkey': pkOf(item, paths) } });
          show(editor, okBox(`Deleted ${item.id}.`));
          await run(false);
        } catch (err) { show(st, errorBox(err, { what: 'the item', onReload: reload })); }
      } }, 'Delete')), st);
  }

  // create makes a new item from JSON the user writes, starting from the
  // container's id and partition key paths.
  function create() {
    const template = {};
    template.id = '';
    for (const p of paths) {
      const parts = p.split('/').filter(Boolean);
      let o = template;
      parts.forEach((part, i) => { if (i === parts.length - 1) { if (!(part in o)) o[part] = ''; } else o = o[part] ??= {}; });
    }
    const text = h('textarea', { class: 'json', id: 'cosmos-new-json', spellcheck: 'false', 'aria-label': 'new item (JSON)' }, stringifyExact(template));
    const st = h('div', { id: 'cosmos-new-status' });
    show(editor, h('h2', {}, 'New item'), text, h('div', { class: 'row' }, h('button', { class: 'primary', id: 'cosmos-create', onclick: async () => {
      try {
        const item = parseExact(text.value);
        const resp = await send('cosmos', `${cpath}/docs`, { method: 'POST', body: stringifyExact(item, 0), headers: {
          ...jsonBody, 'x-ms-documentdb-partitionkey': pkOf(item, paths) } });
        edit(parseExact(await resp.text()));
        editor.append(okBox('Created.'));
        await run(false);
      } catch (err) { show(st, errorBox(err, { what: 'the item' })); }
    } }, 'Create item')), st);
  }

  show(target, h('form', { onsubmit: (e) => { e.preventDefault(); run(false); } }, sql,
    h('div', { class: 'row' }, h('button', { class: 'primary', id: 'cosmos-run' }, 'Run query'),
      h('button', { type: 'button', id: 'cosmos-new', onclick: create }, 'New item'))),
  status, h('div', { class: 'split' }, h('div', {}, h('table', { class: 'list', id: 'cosmos-results' },
    h('thead', {}, h('tr', {}, ['id', '_etag', 'item'].map((t) => h('th', {}, t)))), tbody), more), editor));
  await run(false);
}

async function sprocsTab(target, cpath, paths) {
  const sprocs = await feed(`${cpath}/sprocs`, 'StoredProcedures');
  const status = h('div');
  const result = h('div', { id: 'sproc-result' });
  const pick = h('select', { id: 'sproc-id', 'aria-label': 'stored procedure' }, sprocs.map((s) => h('option', { value: s.id }, s.id)));
  const params = h('textarea', { class: 'mono', id: 'sproc-params', 'aria-label': 'parameters (JSON array)' }, '[]');
  params.style.minHeight = '60px';
  const pk = h('input', { id: 'sproc-pk', placeholder: `partition key value (${paths.join(', ')})`, 'aria-label': 'partition key' });
  const source = h('pre', { class: 'json' });
  const showSource = () => { source.textContent = sprocs.find((s) => s.id === pick.value)?.body || ''; };
  pick.addEventListener('change', showSource);
  showSource();
  async function runSproc(e) {
    e.preventDefault();
    let args;
    try {
      args = parseExact(params.value || '[]');
      if (!Array.isArray(args)) throw new Error('the parameters must be a JSON array');
    } catch (err) { show(status, errorBox(err)); return; }
    try {
      const resp = await send('cosmos', `${cpath}/sprocs/${seg(pick.value)}`, { method: 'POST', body: stringifyExact(args, 0), headers: {
        'Content-Type': 'application/json', 'x-ms-documentdb-partitionkey': stringifyExact([parseLoose(pk.value)], 0),
        'x-ms-documentdb-script-enable-logging': 'true' } });
      const log = resp.headers.get('x-ms-documentdb-script-log-results');
      show(status);
      show(result, h('h2', {}, 'Result'), h('pre', { class: 'json' }, stringifyExact(parseLoose(await resp.text()))),
        log ? [h('h2', {}, 'Log'), h('pre', { class: 'json' }, decodeURIComponent(log))] : null,
        h('p', { class: 'muted' }, `${resp.headers.get('x-ms-request-charge') || 0} RU`));
    } catch (err) { show(status, errorBox(err, { what: 'an item the procedure wrote' })); }
  }
  show(target, sprocs.length ? h('form', { class: 'panel', onsubmit: runSproc },
    h('div', { class: 'row' }, h('label', {}, 'Procedure'), pick, h('label', {}, 'Partition key'), pk),
    h('label', {}, 'Parameters (JSON array)'), params,
    h('div', { class: 'row' }, h('button', { class: 'primary', id: 'sproc-run' }, 'Execute')), h('details', {}, h('summary', {}, 'Source'), source))
    : h('p', { class: 'muted' }, 'This container has no stored procedures.'), status, result);
}

async function changeFeedTab(target, cpath) {
  const status = h('div');
  const tbody = h('tbody');
  let next = '';
  async function peek(fromStart) {
    const headers = { 'A-IM': 'Incremental Feed', 'x-ms-max-item-count': '50' };
    if (!fromStart && next) headers['If-None-Match'] = next;
    let resp;
    try {
      resp = await checked(await call('cosmos', `${cpath}/docs`, { headers }), [304]);
    } catch (err) { show(status, errorBox(err)); return; }
    next = resp.headers.get('etag') || next;
    if (resp.status === 304) {
      show(status, h('p', { class: 'muted' }, 'No newer changes. Continuation ', etag(next)));
      return;
    }
    const docs = parseExact(await resp.text()).Documents;
    show(status, h('p', { class: 'muted' }, `${docs.length} changes · continuation `, etag(next)));
    const rows = docs.map((d) => h('tr', {}, h('td', {}, String(d._lsn ?? '')), h('td', {}, d.id), h('td', {}, etag(d._etag)), h('td', {}, h('pre', { class: 'json' }, exact(d)))));
    if (fromStart) show(tbody, rows);
    else tbody.append(...rows);
  }
  show(target, h('div', { class: 'row' }, h('button', { class: 'primary', onclick: () => peek(true) }, 'Peek from the beginning'),
    h('button', { onclick: () => peek(false) }, 'Next changes')), status,
  h('table', { class: 'list', id: 'change-feed' }, h('thead', {}, h('tr', {}, ['_lsn', 'id', '_etag', 'item'].map((t) => h('th', {}, t)))), tbody));
  await peek(true);
}
