// wire.js: calls to the services through the console's signing proxy,
// their errors, and the small DOM helpers every view uses.

// storageServices are signed per account; the others have one account.
const storageServices = new Set(['blob', 'queue', 'table', 'file']);

// account is the Storage account the page works in ('' for the server's
// default), kept across visits; app.js offers the configured ones.
let account = localStorage.getItem('cerulean-console-account') || '';

export function currentAccount() { return account; }

export function setAccount(name) {
  account = name;
  localStorage.setItem('cerulean-console-account', name);
}

// accountHeaders name the account for a Storage request, so that the
// proxy signs it for that account.
export function accountHeaders(service = 'blob') {
  return account && storageServices.has(service) ? { 'X-Cerulean-Account': account } : {};
}

// call sends one request to a service through /console/api/{service}/.
// path is already escaped (see seg); query is an object or
// URLSearchParams. It resolves to the Response whatever its status.
export async function call(service, path, { method = 'GET', query, headers = {}, body } = {}) {
  let url = `/console/api/${service}/${path}`;
  const q = query instanceof URLSearchParams ? query : new URLSearchParams(query || {});
  const qs = q.toString();
  if (qs) url += '?' + qs;
  return fetch(url, {
    method, body, cache: 'no-store',
    headers: { 'X-Cerulean-Console': '1', ...accountHeaders(service), ...headers },
  });
}

// ServiceError is a service's (or the proxy's) error answer.
export class ServiceError extends Error {
  constructor(status, code, message, requestId) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code || '';
    this.requestId = requestId || '';
  }
  // conflict: the resource changed or exists (412 or 409), not a failure
  // of the console.
  get conflict() { return this.status === 412 || this.status === 409; }
}

// checked resolves to resp when it succeeded and throws its ServiceError
// otherwise. Statuses in allow (e.g. 304) count as success.
export async function checked(resp, allow = []) {
  if (resp.ok || allow.includes(resp.status)) return resp;
  throw await errorOf(resp);
}

// send is call followed by checked.
export async function send(service, path, opts = {}) {
  return checked(await call(service, path, opts), opts.allow);
}

// errorOf reads the error from any of the services' shapes: Storage XML
// (or x-ms-error-code on a HEAD), Table's OData JSON, Cosmos DB's and the
// proxy's {code, message}, Search's {error: {code, message}}.
export async function errorOf(resp) {
  let code = resp.headers.get('x-ms-error-code') || '';
  let message = '';
  const text = await resp.text().catch(() => '');
  if (text.trimStart().startsWith('<')) {
    const doc = new DOMParser().parseFromString(text, 'application/xml');
    code = code || xmlText(doc, 'Code');
    message = xmlText(doc, 'Message');
  } else if (text) {
    try {
      const j = JSON.parse(text);
      const e = j['odata.error'] || j.error || j;
      code = code || e.code || '';
      message = typeof e.message === 'object' ? (e.message.value || '') : (e.message || e.Message || '');
    } catch {
      message = text.slice(0, 500);
    }
  }
  return new ServiceError(resp.status, code, message.split('\nRequestId:')[0],
    resp.headers.get('x-ms-request-id') || resp.headers.get('x-ms-activity-id') || '');
}

// seg escapes one path segment; segs escapes a path of several, keeping
// its slashes.
export const seg = (s) => encodeURIComponent(s);
export const segs = (p) => p.split('/').map(encodeURIComponent).join('/');

export function parseXML(text) {
  return new DOMParser().parseFromString(text, 'application/xml');
}

// xmlText is the text of node's first descendant element named tag.
export function xmlText(node, tag) {
  const e = node.getElementsByTagName(tag)[0];
  return e ? e.textContent : '';
}

export function xmlAll(node, tag) {
  return Array.from(node.getElementsByTagName(tag));
}

export function escapeXML(s) {
  return s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]);
}

// h builds an element: h('a', {href: '#/'}, 'text', child). Attributes
// named on* are listeners; children are nodes or text (never HTML).
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'class') e.className = v;
    else if (k in e && typeof v !== 'string') e[k] = v;
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

export function etag(v) {
  return v ? h('span', { class: 'etag', title: 'ETag' }, v) : h('span', { class: 'muted' }, '—');
}

export function size(n) {
  n = Number(n);
  if (!Number.isFinite(n)) return '';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let i = -1;
  do { n /= 1024; i++; } while (n >= 1024 && i < units.length - 1);
  return `${n.toFixed(1)} ${units[i]}`;
}

// errorBox renders err; a conflict (412, 409) is drawn as one, with a
// reload button when onReload is given.
export function errorBox(err, { onReload, what } = {}) {
  if (!(err instanceof ServiceError)) {
    return h('div', { class: 'status error', role: 'alert' }, h('strong', {}, 'Error'), String(err && err.message || err));
  }
  const detail = h('div', { class: 'detail' },
    `HTTP ${err.status}${err.code ? ' ' + err.code : ''}${err.requestId ? ' · request ' + err.requestId : ''}`);
  if (err.conflict) {
    const title = err.status === 412
      ? `Conflict: ${what || 'this resource'} was changed by someone else since you loaded it`
      : `Conflict: ${what || 'this resource'} is in a conflicting state`;
    return h('div', { class: 'status conflict', role: 'alert', 'data-status': err.status, 'data-code': err.code },
      h('strong', {}, title), err.message, detail,
      onReload ? h('button', { class: 'primary', onclick: onReload }, 'Reload latest') : null);
  }
  return h('div', { class: 'status error', role: 'alert', 'data-status': err.status, 'data-code': err.code },
    h('strong', {}, err.code || `HTTP ${err.status}`), err.message, detail);
}

export function okBox(...text) {
  return h('div', { class: 'status ok', role: 'status' }, ...text);
}

// show replaces the children of target.
export function show(target, ...nodes) {
  target.replaceChildren(...nodes.flat().filter(Boolean));
}

// saveAs hands a downloaded body to the browser as a file.
export function saveAs(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

export function crumbs(...parts) {
  return h('div', { class: 'crumbs' }, parts.map((p, i) =>
    [i ? ' / ' : '', Array.isArray(p) ? h('a', { href: p[1] }, p[0]) : h('span', {}, p)]));
}

export function fmtDate(s) {
  if (!s) return '';
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? s : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

// pretty is JSON indented for reading.
export const pretty = (v) => JSON.stringify(v, null, 2);

// listPages is every item of a Storage XML listing (comp=list on the
// service's root), page after page until no NextMarker: item(e) for each
// element named tag.
export async function listPages(service, tag, item) {
  const out = [];
  let marker = '';
  do {
    const doc = parseXML(await (await send(service, '', { query: { comp: 'list', marker } })).text());
    for (const e of xmlAll(doc, tag)) out.push(item(e));
    marker = xmlText(doc, 'NextMarker');
  } while (marker);
  return out;
}

// createForm is the form that makes a new resource of kind what from the
// name in its one field: create(name) makes it and the page moves to
// go(name); a failure is shown in status, which the view places.
export function createForm(what, create, go) {
  const status = h('div');
  const name = h('input', { placeholder: `new ${what} name`, 'aria-label': `${what} name` });
  const form = h('form', { class: 'row', onsubmit: async (e) => {
    e.preventDefault();
    try {
      await create(name.value);
      location.hash = go(name.value);
    } catch (err) { show(status, errorBox(err, { what: `the ${what}` })); }
  } }, name, h('button', { class: 'primary' }, `Create ${what}`));
  return { form, status };
}

// nameList is a one-column list of names, each linked to href(name), or
// the none text when there are none.
export function nameList(heading, names, href, none) {
  return h('table', { class: 'list' }, h('thead', {}, h('tr', {}, h('th', {}, heading))),
    h('tbody', {}, names.length ? names.map((n) => h('tr', {}, h('td', {}, h('a', { href: href(n) }, n)))) : h('tr', {}, h('td', { class: 'muted' }, none))));
}
