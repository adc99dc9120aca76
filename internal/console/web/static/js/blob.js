// blob.js: containers and blobs: upload, download, delete, properties,
// metadata (saved with If-Match) and lease state, ETags throughout.
import { call, send, checked, h, show, errorBox, okBox, etag, size, seg, segs, parseXML, xmlText, xmlAll, saveAs, crumbs, fmtDate, listPages, createForm } from './wire.js';

const href = (container, name) => `#/blob/${encodeURIComponent(container)}` + (name ? `/${encodeURIComponent(name)}` : '');

async function listContainers() {
  return listPages('blob', 'Container', (c) => ({ name: xmlText(c, 'Name'), etag: xmlText(c, 'Etag'), lease: xmlText(c, 'LeaseState'), modified: xmlText(c, 'Last-Modified') }));
}

export async function listTop() {
  return (await listContainers()).map((c) => ({ name: c.name, href: href(c.name) }));
}

export async function render(main, parts) {
  if (parts.length === 0) return containersView(main);
  return containerView(main, parts[0]);
}

function leaseBadge(state) {
  return state ? h('span', { class: `badge ${state}`, title: 'lease state' }, state) : '';
}

async function containersView(main) {
  const { form, status } = createForm('container', (name) => send('blob', seg(name), { method: 'PUT', query: { restype: 'container' } }), href);
  const rows = (await listContainers()).map((c) => h('tr', {},
    h('td', {}, h('a', { href: href(c.name) }, c.name)), h('td', {}, fmtDate(c.modified)),
    h('td', {}, etag(c.etag)), h('td', {}, leaseBadge(c.lease))));
  show(main, crumbs(['Overview', '#/'], 'Blob'), h('h1', {}, 'Blob containers'), form, status,
    h('table', { class: 'list' }, h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Last modified'), h('th', {}, 'ETag'), h('th', {}, 'Lease'))),
      h('tbody', {}, rows.length ? rows : h('tr', {}, h('td', { colspan: 4, class: 'muted' }, 'No containers.')))));
}

async function containerView(main, container) {
  const cpath = seg(container);
  const props = await send('blob', cpath, { method: 'GET', query: { restype: 'container' } });
  const status = h('div', { id: 'blob-status' });
  const detail = h('div', { class: 'panel', id: 'blob-detail' }, h('p', { class: 'muted' }, 'Select a blob to see its properties and metadata.'));
  const tbody = h('tbody');
  const files = h('input', { type: 'file', multiple: true, id: 'upload-file', 'aria-label': 'files to upload' });
  const prefix = h('input', { placeholder: 'name prefix (optional, e.g. folder/)', id: 'upload-prefix' });

  async function upload(e) {
    e.preventDefault();
    if (!files.files.length) return;
    show(status, h('p', { class: 'muted' }, 'Uploading…'));
    try {
      const done = [];
      for (const f of files.files) {
        const name = prefix.value + f.name;
        const resp = await send('blob', `${cpath}/${segs(name)}`, {
          method: 'PUT', body: f,
          headers: { 'x-ms-blob-type': 'BlockBlob', 'x-ms-blob-content-type': f.type || 'application/octet-stream' },
        });
        done.push(h('div', {}, `Uploaded ${name} (${size(f.size)}), ETag `, etag(resp.headers.get('ETag'))));
      }
      show(status, okBox(done));
      files.value = '';
      await refresh();
    } catch (err) { show(status, errorBox(err, { what: 'the blob' })); }
  }

  async function refresh() {
    const rows = [];
    let marker = '';
    do {
      const resp = await send('blob', cpath, { query: { restype: 'container', comp: 'list', include: 'metadata', marker } });
      const doc = parseXML(await resp.text());
      for (const b of xmlAll(doc, 'Blob')) {
        const name = xmlText(b, 'Name');
        const p = b.getElementsByTagName('Properties')[0];
        const tag = xmlText(p, 'Etag');
        const row = h('tr', { 'data-blob': name },
          h('td', {}, h('a', { href: '#', onclick: (e) => { e.preventDefault(); select(row, name); } }, name)),
          h('td', {}, size(xmlText(p, 'Content-Length'))), h('td', {}, xmlText(p, 'Content-Type')),
          h('td', {}, fmtDate(xmlText(p, 'Last-Modified'))), h('td', {}, etag(tag)), h('td', {}, leaseBadge(xmlText(p, 'LeaseState'))),
          h('td', { class: 'actions' },
            h('button', { class: 'small', onclick: () => download(name) }, 'Download'), ' ',
            h('button', { class: 'small danger', onclick: () => remove(name, tag) }, 'Delete')));
        rows.push(row);
      }
      marker = xmlText(doc, 'NextMarker');
    } while (marker);
    show(tbody, rows.length ? rows : h('tr', {}, h('td', { colspan: 7, class: 'muted' }, 'No blobs.')));
  }

  async function download(name) {
    try {
      const resp = await send('blob', `${cpath}/${segs(name)}`);
      saveAs(await resp.blob(), name.split('/').pop());
    } catch (err) { show(status, errorBox(err)); }
  }

  async function remove(name, tag) {
    if (!confirm(`Delete ${name}?`)) return;
    try {
      // If-Match: deleting what the list showed, not a newer version.
      await send('blob', `${cpath}/${segs(name)}`, { method: 'DELETE', headers: { 'If-Match': tag, 'x-ms-delete-snapshots': 'include' } });
      show(status, okBox(`Deleted ${name}.`));
      await refresh();
    } catch (err) { show(status, errorBox(err, { what: name, onReload: refresh })); }
  }

  async function select(row, name) {
    for (const r of tbody.querySelectorAll('tr.selected')) r.classList.remove('selected');
    row.classList.add('selected');
    await blobDetail(detail, container, name, refresh);
  }

  show(main, crumbs(['Overview', '#/'], ['Blob', '#/blob'], container),
    h('h1', {}, container, ' ', etag(props.headers.get('ETag')), ' ', leaseBadge(props.headers.get('x-ms-lease-state'))),
    h('form', { class: 'row', id: 'upload-form', onsubmit: upload }, files, prefix, h('button', { class: 'primary', id: 'upload-button' }, 'Upload')),
    status,
    h('div', { class: 'split' },
      h('table', { class: 'list', id: 'blob-list' }, h('thead', {}, h('tr', {}, ['Name', 'Size', 'Content type', 'Last modified', 'ETag', 'Lease', ''].map((t) => h('th', {}, t)))), tbody),
      detail));
  await refresh();
}

// blobDetail shows one blob's properties and lets its metadata be edited;
// the save carries the ETag the panel was drawn from.
async function blobDetail(panel, container, name, refreshList) {
  const path = `${seg(container)}/${segs(name)}`;
  let resp;
  try {
    resp = await checked(await call('blob', path, { method: 'HEAD' }));
  } catch (err) { show(panel, errorBox(err)); return; }
  const hd = resp.headers;
  const tag = hd.get('ETag');
  const meta = [];
  for (const [k, v] of hd) if (k.startsWith('x-ms-meta-')) meta.push([k.slice('x-ms-meta-'.length), v]);
  const rowsBox = h('div', { id: 'meta-rows' });
  const addRow = (k = '', v = '') => rowsBox.append(h('div', { class: 'meta-row' },
    h('input', { value: k, placeholder: 'name', 'aria-label': 'metadata name' }), h('input', { value: v, placeholder: 'value', 'aria-label': 'metadata value' }),
    h('button', { type: 'button', class: 'small', onclick: (e) => e.target.parentElement.remove() }, '✕')));
  meta.forEach(([k, v]) => addRow(k, v));
  const status = h('div');
  const save = async (e) => {
    e.preventDefault();
    const headers = { 'If-Match': tag };
    for (const r of rowsBox.children) {
      const [k, v] = r.querySelectorAll('input');
      if (k.value) headers['x-ms-meta-' + k.value] = v.value;
    }
    try {
      await send('blob', path, { method: 'PUT', query: { comp: 'metadata' }, headers });
      await refreshList();
      await blobDetail(panel, container, name, refreshList);
      panel.append(okBox('Metadata saved.'));
    } catch (err) {
      show(status, errorBox(err, { what: name, onReload: () => blobDetail(panel, container, name, refreshList) }));
    }
  };
  const fields = [
    ['ETag', etag(tag)], ['Last modified', hd.get('Last-Modified')], ['Size', size(hd.get('Content-Length'))],
    ['Content type', hd.get('Content-Type')], ['Blob type', hd.get('x-ms-blob-type')],
    ['Lease state', leaseBadge(hd.get('x-ms-lease-state'))], ['Lease status', hd.get('x-ms-lease-status')],
    ['Lease duration', hd.get('x-ms-lease-duration')], ['Content-MD5', hd.get('Content-MD5')],
    ['Access tier', hd.get('x-ms-access-tier')], ['Created', hd.get('x-ms-creation-time')],
  ].filter(([, v]) => v);
  // A lease another client holds can be broken at once from here, as
  // Break Lease with a zero period does.
  const leased = hd.get('x-ms-lease-state') === 'leased';
  const breakLease = async () => {
    try {
      await send('blob', path, { method: 'PUT', query: { comp: 'lease' }, headers: { 'x-ms-lease-action': 'break', 'x-ms-lease-break-period': '0' } });
      await refreshList();
      await blobDetail(panel, container, name, refreshList);
      panel.append(okBox('Lease broken.'));
    } catch (err) { show(status, errorBox(err, { what: 'the lease' })); }
  };
  show(panel, h('h2', {}, name),
    h('dl', { class: 'kv' }, fields.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
    leased ? h('div', { class: 'row' }, h('button', { class: 'danger', onclick: breakLease }, 'Break lease')) : null,
    h('h2', {}, 'Metadata'),
    h('form', { onsubmit: save, id: 'meta-form' }, rowsBox,
      h('div', { class: 'row' }, h('button', { type: 'button', onclick: () => addRow() }, 'Add'), h('button', { class: 'primary' }, 'Save metadata'))),
    status);
}
