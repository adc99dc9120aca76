// queue.js: queues: peek, put and clear messages.
import { send, h, show, errorBox, okBox, seg, parseXML, xmlText, xmlAll, escapeXML, crumbs, fmtDate, listPages, createForm, nameList } from './wire.js';

const href = (q) => `#/queue/${encodeURIComponent(q)}`;

async function listQueues() {
  return listPages('queue', 'Queue', (q) => xmlText(q, 'Name'));
}

export async function listTop() {
  return (await listQueues()).map((name) => ({ name, href: href(name) }));
}

export async function render(main, parts) {
  if (parts.length === 0) return queuesView(main);
  return queueView(main, parts[0]);
}

async function queuesView(main) {
  const { form, status } = createForm('queue', (name) => send('queue', seg(name), { method: 'PUT' }), href);
  const names = await listQueues();
  show(main, crumbs(['Overview', '#/'], 'Queues'), h('h1', {}, 'Queues'), form, status,
    nameList('Name', names, href, 'No queues.'));
}

async function queueView(main, queue) {
  const qpath = seg(queue);
  const status = h('div');
  const count = h('span', { class: 'muted' });
  const tbody = h('tbody');
  const text = h('textarea', { placeholder: 'message text', id: 'message-text', 'aria-label': 'message text' });
  const ttl = h('input', { placeholder: 'time to live, s (optional)', 'aria-label': 'time to live' });

  async function peek() {
    const props = await send('queue', qpath, { query: { comp: 'metadata' } });
    count.textContent = `≈ ${props.headers.get('x-ms-approximate-messages-count')} messages`;
    const doc = parseXML(await (await send('queue', `${qpath}/messages`, { query: { peekonly: 'true', numofmessages: '32' } })).text());
    const rows = xmlAll(doc, 'QueueMessage').map((m) => h('tr', {},
      h('td', { class: 'mono' }, xmlText(m, 'MessageId')), h('td', {}, fmtDate(xmlText(m, 'InsertionTime'))),
      h('td', {}, fmtDate(xmlText(m, 'ExpirationTime'))), h('td', {}, xmlText(m, 'DequeueCount')),
      h('td', { class: 'mono' }, xmlText(m, 'MessageText'))));
    show(tbody, rows.length ? rows : h('tr', {}, h('td', { colspan: 5, class: 'muted' }, 'No visible messages.')));
  }

  async function put(e) {
    e.preventDefault();
    const query = ttl.value ? { messagettl: ttl.value } : {};
    try {
      await send('queue', `${qpath}/messages`, { method: 'POST', query, headers: { 'Content-Type': 'application/xml' },
        body: `<QueueMessage><MessageText>${escapeXML(text.value)}</MessageText></QueueMessage>` });
      text.value = '';
      show(status, okBox('Message put.'));
      await peek();
    } catch (err) { show(status, errorBox(err)); }
  }

  async function clear() {
    if (!confirm(`Delete every message in ${queue}?`)) return;
    try {
      await send('queue', `${qpath}/messages`, { method: 'DELETE' });
      show(status, okBox('Queue cleared.'));
      await peek();
    } catch (err) { show(status, errorBox(err)); }
  }

  show(main, crumbs(['Overview', '#/'], ['Queues', '#/queue'], queue), h('h1', {}, queue, ' ', count),
    h('form', { onsubmit: put, class: 'panel' }, h('h2', {}, 'Put a message'), text,
      h('div', { class: 'row' }, ttl, h('button', { class: 'primary' }, 'Put message'))),
    h('div', { class: 'row' }, h('button', { onclick: () => peek().catch((err) => show(status, errorBox(err))) }, 'Peek'),
      h('button', { class: 'danger', onclick: clear }, 'Clear queue')),
    status,
    h('table', { class: 'list', id: 'message-list' }, h('thead', {}, h('tr', {}, ['Message id', 'Inserted', 'Expires', 'Dequeue count', 'Text'].map((t) => h('th', {}, t)))), tbody));
  await peek();
}
