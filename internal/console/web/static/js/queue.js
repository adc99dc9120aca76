// queue.js: queues: peek, put, dequeue and delete messages, clear and
// delete a queue.
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
  const visibility = h('input', { value: '30', size: 4, 'aria-label': 'visibility timeout' });
  const dequeued = h('div', { id: 'dequeued' });

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

  // dequeue gets the next message, which stays invisible to others for
  // the visibility timeout; its pop receipt deletes it.
  async function dequeue() {
    try {
      const doc = parseXML(await (await send('queue', `${qpath}/messages`, { query: { numofmessages: '1', visibilitytimeout: visibility.value || '30' } })).text());
      const m = xmlAll(doc, 'QueueMessage')[0];
      if (!m) { show(dequeued, h('p', { class: 'muted' }, 'No visible message to dequeue.')); return; }
      const id = xmlText(m, 'MessageId');
      const receipt = xmlText(m, 'PopReceipt');
      const del = async () => {
        try {
          await send('queue', `${qpath}/messages/${seg(id)}`, { method: 'DELETE', query: { popreceipt: receipt } });
          show(dequeued, okBox(`Deleted message ${id}.`));
          await peek();
        } catch (err) { show(dequeued, errorBox(err, { what: 'the message' })); }
      };
      show(dequeued, h('div', { class: 'panel', id: 'dequeued-message', 'data-id': id },
        h('h2', {}, 'Dequeued message'),
        h('dl', { class: 'kv' }, h('dt', {}, 'Message id'), h('dd', { class: 'mono' }, id),
          h('dt', {}, 'Text'), h('dd', { class: 'mono' }, xmlText(m, 'MessageText')),
          h('dt', {}, 'Dequeue count'), h('dd', {}, xmlText(m, 'DequeueCount')),
          h('dt', {}, 'Invisible until'), h('dd', {}, fmtDate(xmlText(m, 'TimeNextVisible'))),
          h('dt', {}, 'Pop receipt'), h('dd', { class: 'mono' }, receipt)),
        h('div', { class: 'row' }, h('button', { class: 'danger', onclick: del }, 'Delete message'))));
      await peek();
    } catch (err) { show(status, errorBox(err)); }
  }

  async function removeQueue() {
    if (!confirm(`Delete the queue ${queue} and its messages?`)) return;
    try {
      await send('queue', qpath, { method: 'DELETE' });
      location.hash = '#/queue';
    } catch (err) { show(status, errorBox(err, { what: 'the queue' })); }
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
      h('button', { onclick: dequeue }, 'Dequeue'), h('label', {}, 'for'), visibility, h('label', {}, 's'),
      h('button', { class: 'danger', onclick: clear }, 'Clear queue'),
      h('button', { class: 'danger', onclick: removeQueue }, 'Delete queue')),
    status, dequeued,
    h('table', { class: 'list', id: 'message-list' }, h('thead', {}, h('tr', {}, ['Message id', 'Inserted', 'Expires', 'Dequeue count', 'Text'].map((t) => h('th', {}, t)))), tbody));
  await peek();
}
