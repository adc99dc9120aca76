// app.js: the router (one view per location hash) and the landing page,
// which lists every service's top-level resources at once.
import { h, show, errorBox, currentAccount, setAccount } from './wire.js';
import * as blob from './blob.js';
import * as queue from './queue.js';
import * as table from './table.js';
import * as file from './file.js';
import * as cosmos from './cosmos.js';
import * as search from './search.js';

// services: what each section lists on the landing page and how its
// resources link.
const services = [
  { id: 'blob', title: 'Blob containers', mod: blob },
  { id: 'queue', title: 'Queues', mod: queue },
  { id: 'table', title: 'Tables', mod: table },
  { id: 'file', title: 'File shares', mod: file },
  { id: 'cosmos', title: 'Cosmos DB databases', mod: cosmos },
  { id: 'search', title: 'Search indexes', mod: search },
];

let configured = null;

async function config() {
  if (!configured) {
    const resp = await fetch('/console/services.json', { cache: 'no-store' });
    configured = await resp.json();
    accountSwitcher(configured);
  }
  return configured;
}

// storageAccount is the Storage account the views show: the one picked
// before, while the server still has it, or the server's default.
const storageAccount = (cfg) => (cfg.accounts || []).includes(currentAccount()) ? currentAccount() : cfg.account;

// accountSwitcher puts every Storage account the console reaches in the
// header; picking one redraws the view for it. Cosmos DB and Search have
// one account each and do not change.
function accountSwitcher(cfg) {
  const accounts = cfg.accounts || [];
  if (accounts.length === 0) return;
  const chosen = storageAccount(cfg);
  setAccount(chosen === cfg.account ? '' : chosen);
  const select = h('select', { id: 'account', 'aria-label': 'Storage account', title: 'Storage account',
    onchange: () => {
      setAccount(select.value === cfg.account ? '' : select.value);
      // A resource of one account is not in another: back to the list.
      const section = location.hash.replace(/^#\/?/, '').split('/')[0];
      const target = ['blob', 'queue', 'table', 'file'].includes(section) ? `#/${section}` : location.hash || '#/';
      if (location.hash === target || (target === '#/' && !location.hash)) route();
      else location.hash = target;
    } }, accounts.map((a) => h('option', { value: a, selected: a === chosen }, a)));
  document.querySelector('header.top').append(h('label', { class: 'account' }, 'Storage account ', select));
}

async function landing(main) {
  const cfg = await config();
  const grid = h('div', { class: 'grid', id: 'overview' });
  show(main, h('h1', {}, 'Overview', cfg.account ? h('span', { class: 'muted', id: 'overview-account' }, ` · Storage account ${storageAccount(cfg)}`) : ''), grid);
  for (const s of services) {
    const list = h('ul', {}, h('li', { class: 'muted' }, 'Loading…'));
    const count = h('span', { class: 'count' });
    const card = h('section', { class: 'card', 'data-service': s.id },
      h('h2', {}, h('a', { href: `#/${s.id}` }, s.title), ' ', count), list);
    grid.append(card);
    if (!cfg.services[s.id]) {
      show(list, h('li', { class: 'muted' }, 'Not served by this server.'));
      continue;
    }
    s.mod.listTop().then((items) => {
      count.textContent = `(${items.length})`;
      show(list, items.length
        ? items.map((it) => h('li', {}, h('a', { href: it.href }, it.name), it.note ? h('span', { class: 'muted' }, it.note) : null))
        : [h('li', { class: 'muted' }, 'None yet.')]);
    }, (err) => show(list, h('li', {}, errorBox(err))));
  }
}

// route draws the view the hash names: #/{service}/{segments…}, each
// segment URI-encoded.
async function route() {
  const main = document.getElementById('main');
  const parts = location.hash.replace(/^#\/?/, '').split('/').filter((p) => p !== '').map(decodeURIComponent);
  const section = parts[0] || '';
  for (const a of document.querySelectorAll('#nav a')) {
    a.classList.toggle('active', a.dataset.section === section);
  }
  main.replaceChildren(h('p', { class: 'muted' }, 'Loading…'));
  try {
    const s = services.find((x) => x.id === section);
    if (!s) {
      await landing(main);
    } else if (!(await config()).services[s.id]) {
      show(main, h('h1', {}, s.title), h('p', { class: 'muted' }, 'This server does not serve this service.'));
    } else {
      await s.mod.render(main, parts.slice(1));
    }
  } catch (err) {
    show(main, errorBox(err));
  }
}

window.addEventListener('hashchange', route);
route();
