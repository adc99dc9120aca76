// file.js: file shares: browse directories, download and upload files,
// make directories.
import { send, h, show, errorBox, okBox, etag, size, seg, parseXML, xmlText, xmlAll, saveAs, crumbs, fmtDate, listPages, createForm } from './wire.js';

const href = (share, dirs = []) => '#/file/' + [share, ...dirs].map(encodeURIComponent).join('/');
// rangeSize is the most one Put Range may write.
const rangeSize = 4 * 1024 * 1024;

async function listShares() {
  return listPages('file', 'Share', (s) => ({ name: xmlText(s, 'Name'), etag: xmlText(s, 'Etag'), quota: xmlText(s, 'Quota') }));
}

export async function listTop() {
  return (await listShares()).map((s) => ({ name: s.name, href: href(s.name) }));
}

export async function render(main, parts) {
  if (parts.length === 0) return sharesView(main);
  return directoryView(main, parts[0], parts.slice(1));
}

async function sharesView(main) {
  const { form, status } = createForm('share', (name) => send('file', seg(name), { method: 'PUT', query: { restype: 'share' } }), href);
  const shares = await listShares();
  show(main, crumbs(['Overview', '#/'], 'Files'), h('h1', {}, 'File shares'), form, status,
    h('table', { class: 'list' }, h('thead', {}, h('tr', {}, ['Name', 'Quota (GiB)', 'ETag'].map((t) => h('th', {}, t)))),
      h('tbody', {}, shares.length ? shares.map((s) => h('tr', {}, h('td', {}, h('a', { href: href(s.name) }, s.name)), h('td', {}, s.quota), h('td', {}, etag(s.etag))))
        : h('tr', {}, h('td', { colspan: 3, class: 'muted' }, 'No shares.')))));
}

async function directoryView(main, share, dirs) {
  const base = [share, ...dirs].map(seg).join('/');
  const status = h('div');
  const tbody = h('tbody');
  const files = h('input', { type: 'file', multiple: true, 'aria-label': 'files to upload' });
  const dirName = h('input', { placeholder: 'new directory name', 'aria-label': 'directory name' });

  async function refresh() {
    const rows = [];
    let marker = '';
    do {
      const doc = parseXML(await (await send('file', base, { query: { restype: 'directory', comp: 'list', include: 'Timestamps,Etag', marker } })).text());
      for (const d of xmlAll(doc, 'Directory')) {
        const name = xmlText(d, 'Name');
        rows.push(h('tr', {}, h('td', {}, '📁 ', h('a', { href: href(share, [...dirs, name]) }, name + '/')), h('td', {}, ''),
          h('td', {}, fmtDate(xmlText(d, 'Last-Modified'))), h('td', {}, etag(xmlText(d, 'Etag'))), h('td', {})));
      }
      for (const f of xmlAll(doc, 'File')) {
        const name = xmlText(f, 'Name');
        rows.push(h('tr', { 'data-file': name }, h('td', {}, name), h('td', {}, size(xmlText(f, 'Content-Length'))),
          h('td', {}, fmtDate(xmlText(f, 'Last-Modified'))), h('td', {}, etag(xmlText(f, 'Etag'))),
          h('td', { class: 'actions' }, h('button', { class: 'small', onclick: () => download(name) }, 'Download'), ' ',
            h('button', { class: 'small danger', onclick: () => remove(name) }, 'Delete'))));
      }
      marker = xmlText(doc, 'NextMarker');
    } while (marker);
    show(tbody, rows.length ? rows : h('tr', {}, h('td', { colspan: 5, class: 'muted' }, 'Empty directory.')));
  }

  async function download(name) {
    try {
      saveAs(await (await send('file', `${base}/${seg(name)}`)).blob(), name);
    } catch (err) { show(status, errorBox(err)); }
  }

  async function remove(name) {
    if (!confirm(`Delete ${name}?`)) return;
    try {
      await send('file', `${base}/${seg(name)}`, { method: 'DELETE' });
      await refresh();
    } catch (err) { show(status, errorBox(err)); }
  }

  // upload creates each file at its size, then writes it in ranges.
  async function upload(e) {
    e.preventDefault();
    try {
      for (const f of files.files) {
        const path = `${base}/${seg(f.name)}`;
        await send('file', path, { method: 'PUT', headers: {
          'x-ms-type': 'file', 'x-ms-content-length': String(f.size), 'x-ms-content-type': f.type || 'application/octet-stream',
        } });
        let tag = '';
        for (let off = 0; off < f.size; off += rangeSize) {
          const end = Math.min(off + rangeSize, f.size) - 1;
          const resp = await send('file', path, { method: 'PUT', query: { comp: 'range' }, body: f.slice(off, end + 1),
            headers: { 'x-ms-write': 'update', 'x-ms-range': `bytes=${off}-${end}` } });
          tag = resp.headers.get('ETag');
        }
        show(status, okBox(`Uploaded ${f.name} (${size(f.size)})`, tag ? [', ETag ', etag(tag)] : ''));
      }
      files.value = '';
      await refresh();
    } catch (err) { show(status, errorBox(err)); }
  }

  async function mkdir(e) {
    e.preventDefault();
    try {
      await send('file', `${base}/${seg(dirName.value)}`, { method: 'PUT', query: { restype: 'directory' } });
      dirName.value = '';
      await refresh();
    } catch (err) { show(status, errorBox(err, { what: 'the directory' })); }
  }

  const trail = [['Overview', '#/'], ['Files', '#/file'], dirs.length ? [share, href(share)] : share];
  dirs.forEach((d, i) => trail.push(i === dirs.length - 1 ? d : [d, href(share, dirs.slice(0, i + 1))]));
  show(main, crumbs(...trail), h('h1', {}, [share, ...dirs].join('/') + '/'),
    h('form', { class: 'row', onsubmit: upload }, files, h('button', { class: 'primary' }, 'Upload')),
    h('form', { class: 'row', onsubmit: mkdir }, dirName, h('button', {}, 'New directory')),
    status,
    h('table', { class: 'list', id: 'file-list' }, h('thead', {}, h('tr', {}, ['Name', 'Size', 'Last modified', 'ETag', ''].map((t) => h('th', {}, t)))), tbody));
  await refresh();
}
