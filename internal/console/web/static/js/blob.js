// blob.js: containers and blobs: virtual folders (names split at "/"),
// upload, download, delete, properties, metadata (saved with If-Match),
// tags, snapshots and versions, lease state, and a shareable read link
// (a SAS URL the server signs), ETags throughout.
import { call, send, checked, h, show, errorBox, okBox, etag, size, seg, segs, parseXML, xmlText, xmlAll, escapeXML, saveAs, crumbs, fmtDate, listPages, createForm, accountHeaders } from './wire.js';

// href is a container's view, or one of its virtual folders: prefix is
// one hash segment, its slashes escaped.
const href = (container, prefix) => `#/blob/${encodeURIComponent(container)}` + (prefix ? `/${encodeURIComponent(prefix)}` : '');

async function listContainers() {
  return listPages('blob', 'Container', (c) => ({ name: xmlText(c, 'Name'), etag: xmlText(c, 'Etag'), lease: xmlText(c, 'LeaseState'), modified: xmlText(c, 'Last-Modified') }));
}

export async function listTop() {
  return (await listContainers()).map((c) => ({ name: c.name, href: href(c.name) }));
}

export async function render(main, parts) {
  if (parts.length === 0) return containersView(main);
  return containerView(main, parts[0], parts[1] || '');
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

// folderCrumbs are the links to a prefix's parent folders.
function folderCrumbs(container, prefix) {
  const out = [['Overview', '#/'], ['Blob', '#/blob']];
  const parts = prefix.split('/').filter(Boolean);
  out.push(parts.length ? [container, href(container)] : container);
  parts.forEach((p, i) => out.push(i === parts.length - 1 ? `${p}/` : [`${p}/`, href(container, parts.slice(0, i + 1).join('/') + '/')]));
  return crumbs(...out);
}

async function containerView(main, container, prefix) {
  const cpath = seg(container);
  const props = await send('blob', cpath, { method: 'GET', query: { restype: 'container' } });
  const status = h('div', { id: 'blob-status' });
  const detail = h('div', { class: 'panel', id: 'blob-detail' }, h('p', { class: 'muted' }, 'Select a blob to see its properties and metadata.'));
  const tbody = h('tbody');
  const files = h('input', { type: 'file', multiple: true, id: 'upload-file', 'aria-label': 'files to upload' });
  const namePrefix = h('input', { placeholder: 'name prefix (optional, e.g. folder/)', id: 'upload-prefix', 'aria-label': 'upload name prefix', value: prefix });

  async function upload(e) {
    e.preventDefault();
    if (!files.files.length) return;
    show(status, h('p', { class: 'muted' }, 'Uploading…'));
    try {
      const done = [];
      for (const f of files.files) {
        const name = namePrefix.value + f.name;
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
      // With a delimiter the service lists the blobs directly under the
      // prefix and folds the rest into BlobPrefix entries: the folders.
      const resp = await send('blob', cpath, { query: { restype: 'container', comp: 'list', include: 'metadata', delimiter: '/', prefix, marker } });
      const doc = parseXML(await resp.text());
      for (const f of xmlAll(doc, 'BlobPrefix')) {
        const name = xmlText(f, 'Name');
        rows.push(h('tr', { 'data-folder': name, class: 'folder' },
          h('td', { colspan: 7 }, h('a', { href: href(container, name) }, '📁 ', name.slice(prefix.length)))));
      }
      for (const b of xmlAll(doc, 'Blob')) {
        const name = xmlText(b, 'Name');
        const p = b.getElementsByTagName('Properties')[0];
        const tag = xmlText(p, 'Etag');
        const row = h('tr', { 'data-blob': name },
          h('td', {}, h('a', { href: '#', onclick: (e) => { e.preventDefault(); select(row, name); } }, name.slice(prefix.length))),
          h('td', {}, size(xmlText(p, 'Content-Length'))), h('td', {}, xmlText(p, 'Content-Type')),
          h('td', {}, fmtDate(xmlText(p, 'Last-Modified'))), h('td', {}, etag(tag)), h('td', {}, leaseBadge(xmlText(p, 'LeaseState'))),
          h('td', { class: 'actions' },
            h('button', { class: 'small', onclick: () => download(name) }, 'Download'), ' ',
            h('button', { class: 'small danger', onclick: () => remove(name, tag) }, 'Delete')));
        rows.push(row);
      }
      marker = xmlText(doc, 'NextMarker');
    } while (marker);
    show(tbody, rows.length ? rows : h('tr', {}, h('td', { colspan: 7, class: 'muted' }, prefix ? 'No blobs under this folder.' : 'No blobs.')));
  }

  async function removeContainer() {
    if (!confirm(`Delete the container ${container} and every blob in it?`)) return;
    try {
      await send('blob', cpath, { method: 'DELETE', query: { restype: 'container' } });
      location.hash = '#/blob';
    } catch (err) { show(status, errorBox(err, { what: 'the container' })); }
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

  show(main, folderCrumbs(container, prefix),
    h('h1', {}, container, prefix ? h('span', { class: 'muted' }, ` / ${prefix}`) : '', ' ', etag(props.headers.get('ETag')), ' ', leaseBadge(props.headers.get('x-ms-lease-state'))),
    h('div', { class: 'row' },
      h('form', { class: 'row', id: 'upload-form', onsubmit: upload }, files, namePrefix, h('button', { class: 'primary', id: 'upload-button' }, 'Upload')),
      h('button', { class: 'danger', id: 'delete-container', onclick: removeContainer }, 'Delete container')),
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
  const tags = h('div', { id: 'blob-tags' });
  const history = h('div', { id: 'blob-history' });
  const link = h('div', { id: 'blob-link' });
  show(panel, h('h2', {}, name),
    h('dl', { class: 'kv' }, fields.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
    leased ? h('div', { class: 'row' }, h('button', { class: 'danger', onclick: breakLease }, 'Break lease')) : null,
    h('h2', {}, 'Metadata'),
    h('form', { onsubmit: save, id: 'meta-form' }, rowsBox,
      h('div', { class: 'row' }, h('button', { type: 'button', onclick: () => addRow() }, 'Add'), h('button', { class: 'primary' }, 'Save metadata'))),
    status, link, tags, history);
  shareLink(link, container, name, {});
  await Promise.all([
    blobTags(tags, path).catch((err) => show(tags, errorBox(err))),
    blobHistory(history, container, name, () => blobDetail(panel, container, name, refreshList)).catch((err) => show(history, errorBox(err))),
  ]);
}

// shareLink makes a read-only link to the blob (or the snapshot or
// version which names) that works without any other credential until it
// expires: the server signs it with the account key, which never reaches
// the page.
function shareLink(target, container, name, which) {
  const hours = h('input', { value: '24', size: 4, 'aria-label': 'link lifetime in hours' });
  const out = h('div');
  const make = async () => {
    const q = new URLSearchParams({ container, blob: name, hours: hours.value, ...which });
    try {
      const resp = await checked(await fetch(`/console/sas/blob?${q}`, { method: 'POST', headers: { 'X-Cerulean-Console': '1', ...accountHeaders() } }));
      const { url, expiry } = await resp.json();
      const field = h('input', { class: 'wide mono', readonly: true, value: url, id: 'share-url', 'aria-label': 'shareable link' });
      show(out, h('div', { class: 'row' }, field,
        h('button', { type: 'button', onclick: () => { field.select(); navigator.clipboard?.writeText(url).catch(() => {}); } }, 'Copy')),
      h('p', { class: 'muted' }, `Read-only, valid until ${fmtDate(expiry)}. Anyone with the link can read this blob until then.`));
    } catch (err) { show(out, errorBox(err)); }
  };
  show(target, h('h2', {}, 'Share'),
    h('div', { class: 'row' }, h('button', { type: 'button', id: 'share-button', onclick: make }, 'Create read link (SAS)'), h('label', {}, 'valid for'), hours, h('label', {}, 'hours')), out);
}

// blobTags shows the blob's index tags and saves them (Set Blob Tags
// replaces the whole set).
async function blobTags(target, path) {
  const doc = parseXML(await (await send('blob', path, { query: { comp: 'tags' } })).text());
  const rows = h('div', { id: 'tag-rows' });
  const addRow = (k = '', v = '') => rows.append(h('div', { class: 'meta-row' },
    h('input', { value: k, placeholder: 'key', 'aria-label': 'tag key' }), h('input', { value: v, placeholder: 'value', 'aria-label': 'tag value' }),
    h('button', { type: 'button', class: 'small', onclick: (e) => e.target.parentElement.remove() }, '✕')));
  for (const t of xmlAll(doc, 'Tag')) addRow(xmlText(t, 'Key'), xmlText(t, 'Value'));
  const status = h('div');
  const save = async (e) => {
    e.preventDefault();
    const set = Array.from(rows.children, (r) => r.querySelectorAll('input')).filter(([k]) => k.value)
      .map(([k, v]) => `<Tag><Key>${escapeXML(k.value)}</Key><Value>${escapeXML(v.value)}</Value></Tag>`).join('');
    try {
      await send('blob', path, { method: 'PUT', query: { comp: 'tags' }, headers: { 'Content-Type': 'application/xml' },
        body: `<?xml version="1.0" encoding="utf-8"?><Tags><TagSet>${set}</TagSet></Tags>` });
      show(status, okBox('Tags saved.'));
    } catch (err) { show(status, errorBox(err, { what: 'the tags' })); }
  };
  show(target, h('h2', {}, 'Tags'), h('form', { onsubmit: save, id: 'tags-form' }, rows,
    h('div', { class: 'row' }, h('button', { type: 'button', onclick: () => addRow() }, 'Add tag'), h('button', { class: 'primary' }, 'Save tags'))), status);
}

// blobHistory lists the blob's snapshots and versions (versions exist
// where the account keeps them), each with a download and a link, and
// takes a snapshot.
async function blobHistory(target, container, name, redraw) {
  const cpath = seg(container);
  const entries = [];
  let marker = '';
  do {
    const doc = parseXML(await (await send('blob', cpath, { query: { restype: 'container', comp: 'list', include: 'snapshots,versions', prefix: name, marker } })).text());
    for (const b of xmlAll(doc, 'Blob')) {
      if (xmlText(b, 'Name') !== name) continue;
      const snapshot = xmlText(b, 'Snapshot');
      const version = xmlText(b, 'VersionId');
      if (!snapshot && !version) continue;
      const p = b.getElementsByTagName('Properties')[0];
      entries.push({ snapshot, version, current: xmlText(b, 'IsCurrentVersion') === 'true', size: xmlText(p, 'Content-Length'), etag: xmlText(p, 'Etag') });
    }
    marker = xmlText(doc, 'NextMarker');
  } while (marker);
  const status = h('div');
  const linkBox = h('div');
  const take = async () => {
    try {
      const resp = await send('blob', `${cpath}/${segs(name)}`, { method: 'PUT', query: { comp: 'snapshot' } });
      await redraw();
      document.getElementById('blob-history')?.append(okBox('Snapshot ', h('span', { class: 'mono' }, resp.headers.get('x-ms-snapshot')), ' taken.'));
    } catch (err) { show(status, errorBox(err)); }
  };
  const download = async (which) => {
    try {
      const resp = await send('blob', `${cpath}/${segs(name)}`, { query: which });
      saveAs(await resp.blob(), name.split('/').pop());
    } catch (err) { show(status, errorBox(err)); }
  };
  const rows = entries.map((e) => {
    const which = e.snapshot ? { snapshot: e.snapshot } : { versionid: e.version };
    return h('tr', { 'data-snapshot': e.snapshot || null, 'data-version': e.version || null },
      h('td', {}, e.snapshot ? 'snapshot' : (e.current ? 'version (current)' : 'version')),
      h('td', { class: 'mono' }, e.snapshot || e.version), h('td', {}, size(e.size)), h('td', {}, etag(e.etag)),
      h('td', { class: 'actions' }, h('button', { class: 'small', onclick: () => download(which) }, 'Download'), ' ',
        h('button', { class: 'small', onclick: () => shareLink(linkBox, container, name, which) }, 'Link')));
  });
  show(target, h('h2', {}, 'Snapshots and versions'),
    h('table', { class: 'list', id: 'snapshot-list' }, h('thead', {}, h('tr', {}, ['Kind', 'Snapshot / version', 'Size', 'ETag', ''].map((t) => h('th', {}, t)))),
      h('tbody', {}, rows.length ? rows : h('tr', {}, h('td', { colspan: 5, class: 'muted' }, 'No snapshots or versions.')))),
    h('div', { class: 'row' }, h('button', { type: 'button', id: 'take-snapshot', onclick: take }, 'Take snapshot')), status, linkBox);
}
