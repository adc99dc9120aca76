// search.js: Search indexes and the search explorer (search text,
// $filter, $orderby, results as JSON).
import { send, h, show, errorBox, etag, seg, crumbs, pretty, nameList } from './wire.js';

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

async function indexesView(main) {
  const names = await listIndexes();
  show(main, crumbs(['Overview', '#/'], 'Search'), h('h1', {}, 'Search indexes'),
    nameList('Index', names, href, 'No indexes.'));
}

async function explorer(main, index) {
  const def = await (await send('search', `indexes/${seg(index)}`, { query: apiVersion })).json();
  const text = h('input', { class: 'wide', id: 'search-text', placeholder: 'search text (* for everything)', value: '*' });
  const filter = h('input', { class: 'wide', id: 'search-filter', placeholder: "$filter, e.g. rating ge 4 and category eq 'books'" });
  const orderby = h('input', { id: 'search-orderby', placeholder: '$orderby' });
  const top = h('input', { id: 'search-top', size: 5, value: '20', 'aria-label': '$top' });
  const status = h('div', { id: 'search-status' });
  const results = h('pre', { class: 'json', id: 'search-results' });

  async function run(e) {
    if (e) e.preventDefault();
    const body = { search: text.value || '*', count: true, top: Number(top.value) || 20 };
    if (filter.value.trim()) body.filter = filter.value.trim();
    if (orderby.value.trim()) body.orderby = orderby.value.trim();
    try {
      const resp = await send('search', `indexes/${seg(index)}/docs/search`, {
        method: 'POST', query: apiVersion, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      const res = await resp.json();
      show(status, h('p', { class: 'muted' }, `${res['@odata.count'] ?? res.value.length} matching documents, ${res.value.length} shown`));
      results.textContent = pretty(res);
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
      h('div', { class: 'panel' }, h('h2', {}, 'Fields'), h('table', { class: 'list' }, h('thead', {}, h('tr', {}, ['Name', 'Type', 'Attributes'].map((t) => h('th', {}, t)))), h('tbody', {}, fields)))));
  await run();
}
