// search.js: Search indexes: create one and edit its definition (under
// its ETag), upload documents, and the search explorer (search text,
// $filter, $orderby, results as JSON). Definitions and documents go
// through exactjson, so an Int64 beyond 2^53 or a 1.0 is sent as written.
import { send, h, show, errorBox, okBox, etag, seg, crumbs, pretty, nameList } from './wire.js';
import { RawNumber, parseExact, stringifyExact } from './exactjson.js';

const apiVersion = { 'api-version': '2024-07-01' };
const href = (name) => `#/search/${encodeURIComponent(name)}`;

async function listIndexes() {
  return (await (await send('search', 'indexes', { query: { ...apiVersion, $select: 'name' } })).json()).value.map((i) => i.name);
}

export async function listTop() {
  return (await listIndexes()).map((name) => ({ name, href: href(name) }));
}

export async function render(main, parts) {
  if (parts.length === 0) return indexesView(main);
  return explorer(main, parts[0]);
}

const jsonBody = { 'Content-Type': 'application/json' };

// newIndexTemplate is where a new index's definition starts.
const newIndexTemplate = { name: '', fields: [
  { name: 'id', type: 'Edm.String', key: true, filterable: true },
  { name: 'title', type: 'Edm.String', searchable: true },
] };

async function indexesView(main) {
  const names = await listIndexes();
  const text = h('textarea', { class: 'json', id: 'index-new-json', spellcheck: 'false', 'aria-label': 'new index definition (JSON)' }, pretty(newIndexTemplate));
  const status = h('div', { id: 'index-new-status' });
  const create = async (e) => {
    e.preventDefault();
    try {
      const def = parseExact(text.value);
      await send('search', 'indexes', { method: 'POST', query: apiVersion, headers: jsonBody, body: stringifyExact(def, 0) });
      location.hash = href(def.name);
    } catch (err) { show(status, errorBox(err, { what: 'the index' })); }
  };
  show(main, crumbs(['Overview', '#/'], 'Search'), h('h1', {}, 'Search indexes'),
    h('details', { class: 'panel' }, h('summary', {}, 'Create an index'),
      h('form', { onsubmit: create }, text, h('div', { class: 'row' }, h('button', { class: 'primary', id: 'index-create' }, 'Create index'))), status),
    nameList('Index', names, href, 'No indexes.'));
}

// editDefinition edits the index's definition and saves it under the
// ETag it was read with, so a change made elsewhere is a 412 conflict.
function editDefinition(target, index, def, redraw) {
  const shown = { ...def };
  delete shown['@odata.context'];
  delete shown['@odata.etag'];
  const text = h('textarea', { class: 'json', id: 'index-json', spellcheck: 'false', 'aria-label': 'index definition (JSON)' }, stringifyExact(shown));
  const status = h('div', { id: 'index-status' });
  const save = async (e) => {
    e.preventDefault();
    try {
      const next = parseExact(text.value);
      await send('search', `indexes/${seg(index)}`, { method: 'PUT', query: apiVersion, headers: { ...jsonBody, 'If-Match': def['@odata.etag'] }, body: stringifyExact(next, 0) });
      await redraw();
      document.getElementById('definition-panel')?.setAttribute('open', '');
      document.getElementById('index-status')?.append(okBox('Index saved.'));
    } catch (err) { show(status, errorBox(err, { what: 'the index', onReload: redraw })); }
  };
  show(target, h('form', { onsubmit: save }, text, h('div', { class: 'row' }, h('button', { class: 'primary', id: 'index-save' }, 'Save index (If-Match)'))), status);
}

// uploadDocuments sends documents (a JSON array, or one object) with the
// action chosen for each, and shows each document's result.
function uploadDocuments(target, index, after) {
  const text = h('textarea', { class: 'json', id: 'docs-json', spellcheck: 'false', 'aria-label': 'documents (JSON array)' }, '[\n  {}\n]');
  const action = h('select', { id: 'docs-action', 'aria-label': 'action' }, ['mergeOrUpload', 'upload', 'merge', 'delete'].map((a) => h('option', { value: a }, a)));
  const status = h('div', { id: 'docs-status' });
  const send_ = async (e) => {
    e.preventDefault();
    let docs;
    try {
      docs = parseExact(text.value);
      if (!Array.isArray(docs)) docs = [docs];
      if (docs.some((d) => d === null || typeof d !== 'object' || Array.isArray(d) || d instanceof RawNumber)) throw new Error('Each document is a JSON object.');
    } catch (err) { show(status, errorBox(err)); return; }
    const value = docs.map((d) => ({ '@search.action': action.value, ...d }));
    try {
      const resp = await send('search', `indexes/${seg(index)}/docs/index`, { method: 'POST', query: apiVersion, headers: jsonBody, body: stringifyExact({ value }, 0), allow: [207] });
      const results = (await resp.json()).value || [];
      const failed = results.filter((r) => !r.status);
      show(status, (failed.length ? (x) => h('div', { class: 'status error', role: 'alert' }, x) : okBox)(
        `${results.length - failed.length} of ${results.length} documents indexed.`,
        failed.map((r) => h('div', { class: 'detail' }, `${r.key}: ${r.errorMessage || r.statusCode}`))));
      await after();
    } catch (err) { show(status, errorBox(err)); }
  };
  show(target, h('form', { onsubmit: send_ }, text, h('div', { class: 'row' }, h('label', {}, 'action'), action, h('button', { class: 'primary', id: 'docs-upload' }, 'Upload documents'))), status);
}

async function explorer(main, index) {
  const def = parseExact(await (await send('search', `indexes/${seg(index)}`, { query: apiVersion })).text());
  const text = h('input', { class: 'wide', id: 'search-text', placeholder: 'search text (* for everything)', value: '*' });
  const filter = h('input', { class: 'wide', id: 'search-filter', placeholder: "$filter, e.g. rating ge 4 and category eq 'books'" });
  const orderby = h('input', { id: 'search-orderby', placeholder: '$orderby' });
  const top = h('input', { id: 'search-top', size: 5, value: '20', 'aria-label': '$top' });
  const status = h('div', { id: 'search-status' });
  const results = h('pre', { class: 'json', id: 'search-results' });
  const docsBox = h('div');
  const defBox = h('div');

  async function run(e) {
    if (e) e.preventDefault();
    const body = { search: text.value || '*', count: true, top: Number(top.value) || 20 };
    if (filter.value.trim()) body.filter = filter.value.trim();
    if (orderby.value.trim()) body.orderby = orderby.value.trim();
    try {
      const resp = await send('search', `indexes/${seg(index)}/docs/search`, {
        method: 'POST', query: apiVersion, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      const res = parseExact(await resp.text());
      show(status, h('p', { class: 'muted' }, `${res['@odata.count'] ?? res.value.length} matching documents, ${res.value.length} shown`));
      results.textContent = stringifyExact(res);
    } catch (err) { show(status, errorBox(err)); results.textContent = ''; }
  }

  const fields = (def.fields || []).map((f) => h('tr', {}, h('td', { class: 'mono' }, f.name), h('td', {}, f.type),
    h('td', {}, ['key', 'searchable', 'filterable', 'sortable', 'facetable'].filter((a) => f[a]).join(', '))));
  show(main, crumbs(['Overview', '#/'], ['Search', '#/search'], index), h('h1', {}, index, ' ', etag(def['@odata.etag'])),
    h('div', { class: 'split' },
      h('div', {},
        h('form', { class: 'panel', onsubmit: run },
          h('div', { class: 'row' }, h('label', {}, 'search'), text),
          h('div', { class: 'row' }, h('label', {}, '$filter'), filter),
          h('div', { class: 'row' }, h('label', {}, '$orderby'), orderby, h('label', {}, '$top'), top, h('button', { class: 'primary', id: 'search-run' }, 'Search'))),
        status, results),
      h('div', {},
        h('div', { class: 'panel' }, h('h2', {}, 'Fields'), h('table', { class: 'list', id: 'index-fields' }, h('thead', {}, h('tr', {}, ['Name', 'Type', 'Attributes'].map((t) => h('th', {}, t)))), h('tbody', {}, fields))),
        h('details', { class: 'panel', id: 'upload-panel' }, h('summary', {}, 'Upload documents'), docsBox),
        h('details', { class: 'panel', id: 'definition-panel' }, h('summary', {}, 'Edit the definition'), defBox))));
  uploadDocuments(docsBox, index, () => run());
  editDefinition(defBox, index, def, () => explorer(main, index));
  await run();
}
