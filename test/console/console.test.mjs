// The web console in headless Chromium, driven by playwright-core. Run by
// console_test.go, which starts the server, seeds it with the Go SDKs and
// passes names and URLs in CERULEAN_CONSOLE_* variables.
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const env = (name) => {
  const v = process.env[name];
  assert.ok(v, `${name} is not set: run this through go test`);
  return v;
};
const consoleURL = env('CERULEAN_CONSOLE_URL');
const shots = process.env.CERULEAN_CONSOLE_SCREENSHOTS;

let context;
let page;
let profile;
// Uncaught script errors on the page; each test must leave none.
const pageErrors = [];
// Answers of 400 and up to the console's own paths (its page, assets and
// icon; the services' answers through the proxy are the services'
// business); each test must leave none.
const consoleErrors = [];

before(async () => {
  profile = mkdtempSync(join(tmpdir(), 'cerulean-console-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: env('CERULEAN_CHROMIUM'),
    headless: true,
    viewport: { width: 1280, height: 800 },
    acceptDownloads: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = context.pages()[0] || await context.newPage();
  page.setDefaultTimeout(15000);
  // Every confirm() (delete, clear) is accepted.
  page.on('dialog', (d) => d.accept());
  page.on('pageerror', (err) => pageErrors.push(err));
  page.on('response', (r) => {
    const path = new URL(r.url()).pathname;
    if (r.status() >= 400 && !path.startsWith('/console/api/')) consoleErrors.push(`${r.status()} ${path}`);
  });
  if (shots) mkdirSync(shots, { recursive: true });
});

after(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

afterEach(() => {
  assert.deepEqual(pageErrors.splice(0).map(String), [], 'script errors on the page');
  assert.deepEqual(consoleErrors.splice(0), [], 'failed requests for the console itself');
});

async function screenshot(name) {
  if (shots) await page.screenshot({ path: join(shots, `${name}.png`) });
}

async function open(hash) {
  await page.goto(consoleURL + hash);
}

test('the landing page lists the container the Go SDK created, and every service; /favicon.ico is an icon', async () => {
  await open('');
  const blobCard = page.locator('section.card[data-service=blob]');
  await blobCard.getByRole('link', { name: env('CERULEAN_CONSOLE_CONTAINER'), exact: true }).waitFor();
  await page.locator('section.card[data-service=table]').getByRole('link', { name: env('CERULEAN_CONSOLE_TABLE'), exact: true }).waitFor();
  const [db] = env('CERULEAN_CONSOLE_COSMOS').split('/');
  await page.locator('section.card[data-service=cosmos]').getByRole('link', { name: db, exact: true }).waitFor();
  await page.locator('section.card[data-service=search]').getByRole('link', { name: env('CERULEAN_CONSOLE_SEARCH_INDEX'), exact: true }).waitFor();
  await page.locator('section.card[data-service=queue]').getByRole('link', { name: 'orders-to-ship', exact: true }).waitFor();
  await page.locator('section.card[data-service=file]').getByRole('link', { name: 'team-docs', exact: true }).waitFor();
  await screenshot('landing');
  // The icon the page names, and the one browsers ask for on their own.
  assert.equal(await page.locator('link[rel=icon]').getAttribute('href'), '/favicon.ico');
  const icon = await page.evaluate(async () => {
    const r = await fetch('/favicon.ico');
    return [r.status, r.headers.get('content-type'), (await r.text()).startsWith('<svg')];
  });
  assert.deepEqual(icon, [200, 'image/svg+xml', true]);
});

test('a file uploaded in the console becomes a blob, with its ETag and metadata', async () => {
  const container = env('CERULEAN_CONSOLE_CONTAINER');
  await open('#/');
  await page.locator('section.card[data-service=blob]').getByRole('link', { name: container, exact: true }).click();
  await page.locator('#upload-file').setInputFiles(env('CERULEAN_CONSOLE_UPLOAD'));
  await page.locator('#upload-button').click();
  const row = page.locator('#blob-list tr[data-blob="uploaded-in-console.bin"]');
  await row.waitFor();
  assert.match(await row.locator('.etag').innerText(), /^"?0x[0-9A-F]+"?$/);
  // Metadata is saved under the ETag the panel shows.
  await row.getByRole('link', { name: 'uploaded-in-console.bin' }).click();
  await page.locator('#meta-form').getByRole('button', { name: 'Add' }).click();
  await page.getByLabel('metadata name').last().fill('reviewedby');
  await page.getByLabel('metadata value').last().fill('console');
  await page.getByRole('button', { name: 'Save metadata' }).click();
  await page.locator('#blob-detail .status.ok').waitFor();
  assert.equal(await page.getByLabel('metadata value').last().inputValue(), 'console');
  await screenshot('blob-container');

  // Another client leases the blob: the console shows it leased and can
  // break the lease.
  const lease = await fetch(`${consoleURL}console/api/blob/${container}/uploaded-in-console.bin?comp=lease`, {
    method: 'PUT', headers: { 'X-Cerulean-Console': '1', 'x-ms-lease-action': 'acquire', 'x-ms-lease-duration': '-1' },
  });
  assert.equal(lease.status, 201, await lease.text());
  await row.getByRole('link', { name: 'uploaded-in-console.bin' }).click();
  await page.locator('#blob-detail .badge.leased').waitFor();
  await page.getByRole('button', { name: 'Break lease' }).click();
  await page.locator('#blob-detail .badge.broken').waitFor();
  assert.equal(await row.locator('.badge').innerText(), 'broken');
});

test('Blob: virtual folders, tags, a snapshot, a shareable read link, delete the container', async () => {
  await open('#/blob');
  await page.getByLabel('container name').fill('console-folders');
  await page.getByRole('button', { name: 'Create container' }).click();
  await page.locator('#upload-prefix').waitFor();
  await page.locator('#upload-prefix').fill('reports/2026/');
  await page.locator('#upload-file').setInputFiles(env('CERULEAN_CONSOLE_UPLOAD'));
  await page.locator('#upload-button').click();
  await page.locator('#blob-status .status.ok').waitFor();
  // At the root the blob is inside a folder, and the folders lead to it.
  await open('#/blob/console-folders');
  await page.locator('#blob-list tr[data-folder="reports/"]').getByRole('link').click();
  await page.locator('#blob-list tr[data-folder="reports/2026/"]').getByRole('link').click();
  const row = page.locator('#blob-list tr[data-blob="reports/2026/uploaded-in-console.bin"]');
  await row.getByRole('link', { name: 'uploaded-in-console.bin', exact: true }).click();
  assert.match(await page.locator('.crumbs').innerText(), /console-folders \/ reports\/ \/ 2026\//);

  await page.getByRole('button', { name: 'Add tag' }).click();
  await page.getByLabel('tag key').last().fill('project');
  await page.getByLabel('tag value').last().fill('apollo');
  await page.getByRole('button', { name: 'Save tags' }).click();
  await page.locator('#blob-tags .status.ok').waitFor();
  const blobPath = `${consoleURL}console/api/blob/console-folders/reports/2026/uploaded-in-console.bin`;
  const tags = await fetch(`${blobPath}?comp=tags`, { headers: { 'X-Cerulean-Console': '1' } });
  assert.match(await tags.text(), /<Key>project<\/Key><Value>apollo<\/Value>/);

  await page.locator('#take-snapshot').click();
  await page.locator('#snapshot-list tr[data-snapshot]').waitFor();
  await page.locator('#blob-history .status.ok').filter({ hasText: 'Snapshot' }).waitFor();
  // The account keeps versions: the upload made the current one.
  await page.locator('#snapshot-list tr[data-version]').filter({ hasText: 'version (current)' }).waitFor();

  // The link reads the blob with no credential but its own.
  await page.locator('#share-button').click();
  const link = await page.locator('#share-url').inputValue();
  assert.match(link, /[?&]sig=/);
  assert.match(link, /[?&]sp=r(&|$)/);
  const shared = await fetch(link);
  assert.equal(shared.status, 200);
  assert.equal((await shared.arrayBuffer()).byteLength, 300 * 1024 + 7);
  await screenshot('blob-folders');

  await page.locator('#delete-container').click();
  await page.waitForURL(/#\/blob$/);
  await page.getByRole('button', { name: 'Create container' }).waitFor();
  const gone = await fetch(`${consoleURL}console/api/blob/console-folders?restype=container`, { headers: { 'X-Cerulean-Console': '1' } });
  assert.equal(gone.status, 404);
});

test('saving an entity someone else changed shows the 412 conflict, and a reload saves', async () => {
  const table = env('CERULEAN_CONSOLE_TABLE');
  await open(`#/table/${encodeURIComponent(table)}`);
  const row = page.locator(`#entity-list tr[data-pk="${env('CERULEAN_CONSOLE_PK')}"][data-rk="${env('CERULEAN_CONSOLE_RK')}"]`);
  await row.getByRole('link', { name: 'Edit' }).click();
  await page.locator('#entity-etag .etag').waitFor();
  const loaded = await page.locator('#entity-etag .etag').innerText();
  const status = page.getByLabel('value of Status');
  assert.equal(await status.inputValue(), 'new');

  // The Go SDK changes the entity between the console's load and save.
  const hook = await fetch(env('CERULEAN_CONSOLE_HOOKS') + '/change-entity', { method: 'POST' });
  assert.equal(hook.status, 204, await hook.text());

  await status.fill('shipped');
  await page.locator('#entity-save').click();
  const conflict = page.locator('#entity-status .status.conflict');
  await conflict.waitFor();
  assert.equal(await conflict.getAttribute('data-status'), '412');
  assert.equal(await conflict.getAttribute('data-code'), 'UpdateConditionNotSatisfied'); // the Table service's code for 412
  assert.match(await conflict.innerText(), /changed by someone else/);
  await screenshot('table-conflict');

  await conflict.getByRole('button', { name: 'Reload latest' }).click();
  await page.locator('#entity-status .status.ok').waitFor();
  assert.equal(await page.getByLabel('value of Status').inputValue(), 'changed-by-go-sdk');
  assert.notEqual(await page.locator('#entity-etag .etag').innerText(), loaded);
  await page.getByLabel('value of Status').fill('saved-after-reload');
  await page.locator('#entity-save').click();
  await page.locator('#entity-status .status.ok').waitFor();
});

// Each property of the entity console_test.go seeds, as the editor must
// show it: its EDM type and its value's text. console_test.go reads the
// entity back after the save and checks each type and value.
const typedProps = {
  DoubleOne: ['Edm.Double', '1.0'],
  DoubleTenth: ['Edm.Double', '0.1'],
  DoubleNegZero: ['Edm.Double', '-0.0'],
  DoubleHuge: ['Edm.Double', '1e+300'],
  DoubleNaN: ['Edm.Double', 'NaN'],
  DoubleInf: ['Edm.Double', 'Infinity'],
  DoubleNegInf: ['Edm.Double', '-Infinity'],
  Int32: ['Edm.Int32', '7'],
  Int32Min: ['Edm.Int32', '-2147483648'],
  Int64: ['Edm.Int64', '9007199254740993'],
  Int64Small: ['Edm.Int64', '1'],
  Bool: ['Edm.Boolean', 'true'],
  When: ['Edm.DateTime', '2026-11-27T18:30:02.1234567Z'],
  Id: ['Edm.Guid', 'c9da6455-213d-42c9-9a79-3e9149a57833'],
  Bytes: ['Edm.Binary', 'AAEC/w=='],
  Text: ['Edm.String', '1.0'],
  Empty: ['Edm.String', ''],
};

test('saving an entity keeps every property\'s EDM type and value; a new property takes the type picked', async () => {
  const [pk, rk] = env('CERULEAN_CONSOLE_TYPED').split('/');
  await open(`#/table/${encodeURIComponent(env('CERULEAN_CONSOLE_TABLE'))}/${encodeURIComponent(pk)}/${encodeURIComponent(rk)}`);
  await page.locator('#entity-etag .etag').waitFor();
  for (const [name, [type, text]] of Object.entries(typedProps)) {
    assert.equal(await page.getByLabel(`type of ${name}`, { exact: true }).inputValue(), type, `${name}'s type`);
    assert.equal(await page.getByLabel(`value of ${name}`, { exact: true }).inputValue(), text, `${name}'s value`);
  }
  // A value that is not of its type is refused before anything is sent.
  await page.locator('#entity-add-prop').click();
  await page.getByLabel('property name').fill('Picked');
  await page.getByLabel('property type').selectOption('Edm.Int64');
  await page.getByLabel('property value').fill('forty-two');
  await page.locator('#entity-save').click();
  await page.locator('#entity-status .status.error').filter({ hasText: 'Picked' }).waitFor();
  await page.getByLabel('property value').fill('42');
  await page.locator('#entity-save').click();
  await page.locator('#entity-status .status.ok').waitFor();
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot('table-entity-types');

  // An entity inserted from the grid keeps the types picked there.
  await open(`#/table/${encodeURIComponent(env('CERULEAN_CONSOLE_TABLE'))}`);
  await page.locator('details summary').filter({ hasText: 'Insert an entity' }).click();
  await page.getByLabel('new PartitionKey').fill('types');
  await page.getByLabel('new RowKey').fill('inserted');
  await page.locator('#entity-add-prop').click();
  await page.getByLabel('property name').fill('Ratio');
  await page.getByLabel('property type').selectOption('Edm.Double');
  await page.getByLabel('property value').fill('2.0');
  await page.getByRole('button', { name: 'Insert', exact: true }).click();
  await page.locator('details .status.ok').filter({ hasText: 'Inserted' }).waitFor();
  const inserted = await fetch(`${consoleURL}console/api/table/${env('CERULEAN_CONSOLE_TABLE')}(PartitionKey='types',RowKey='inserted')`, {
    headers: { 'X-Cerulean-Console': '1', Accept: 'application/json;odata=fullmetadata' } });
  assert.match(await inserted.text(), /"Ratio":2\.0\b/);

  // Loaded again, the editor shows what it saved.
  await open(`#/table/${encodeURIComponent(env('CERULEAN_CONSOLE_TABLE'))}/${encodeURIComponent(pk)}/${encodeURIComponent(rk)}`);
  await page.getByLabel('type of Picked', { exact: true }).waitFor();
  assert.equal(await page.getByLabel('type of Picked', { exact: true }).inputValue(), 'Edm.Int64');
  assert.equal(await page.getByLabel('type of DoubleOne', { exact: true }).inputValue(), 'Edm.Double');
  assert.equal(await page.getByLabel('value of DoubleOne', { exact: true }).inputValue(), '1.0');
});

test('Cosmos DB: a SQL query, a stored procedure with a partition key, the change feed', async () => {
  const [db, coll] = env('CERULEAN_CONSOLE_COSMOS').split('/');
  await open(`#/cosmos/${encodeURIComponent(db)}/${encodeURIComponent(coll)}`);
  await page.locator('#cosmos-sql').fill("SELECT c.id, c.category, c.price, c._etag FROM c WHERE c.category = 'tools' ORDER BY c.price");
  await page.locator('#cosmos-run').click();
  await page.locator('#cosmos-status').filter({ hasText: '2 results' }).waitFor();
  const text = await page.locator('#cosmos-results').innerText();
  assert.ok(text.indexOf('hammer') < text.indexOf('saw'), text);

  // Someone else replaces the item while the console has it open: the
  // console's replace, under the _etag it read, is a 412 conflict.
  await page.getByRole('link', { name: 'saw', exact: true }).click();
  const itemJSON = page.locator('#cosmos-item-json');
  await itemJSON.waitFor();
  const item = JSON.parse(await itemJSON.inputValue());
  await screenshot('cosmos-query');
  const other = await fetch(`${consoleURL}console/api/cosmos/dbs/${db}/colls/${coll}/docs/saw`, {
    method: 'PUT', body: JSON.stringify({ id: 'saw', category: 'tools', price: 25, stock: item.stock }),
    headers: { 'X-Cerulean-Console': '1', 'Content-Type': 'application/json', 'x-ms-documentdb-partitionkey': '["tools"]' },
  });
  assert.equal(other.status, 200, await other.text());
  await itemJSON.fill(JSON.stringify({ ...item, price: 19 }, null, 2));
  await page.locator('#cosmos-replace').click();
  const conflict = page.locator('#cosmos-item-status .status.conflict');
  await conflict.waitFor();
  assert.equal(await conflict.getAttribute('data-status'), '412');
  assert.equal(await conflict.getAttribute('data-code'), 'PreconditionFailed');
  await conflict.getByRole('button', { name: 'Reload latest' }).click();
  await page.locator('#cosmos-item .status.ok').waitFor();
  assert.equal(JSON.parse(await itemJSON.inputValue()).price, 25);

  await page.getByRole('tab', { name: 'Stored procedures' }).click();
  await page.locator('#sproc-params').fill('["saw", 5]');
  await page.locator('#sproc-pk').fill('tools');
  await page.locator('#sproc-run').click();
  await page.locator('#sproc-result').filter({ hasText: '"stock": 12' }).waitFor();

  await page.getByRole('tab', { name: 'Change feed' }).click();
  await page.locator('#change-feed').filter({ hasText: 'kettle' }).waitFor();
});

test('Cosmos DB: replacing an item unchanged keeps every number as written; its own fields come before the system ones', async () => {
  const [db, coll] = env('CERULEAN_CONSOLE_COSMOS').split('/');
  const id = env('CERULEAN_CONSOLE_PRECISE');
  await open(`#/cosmos/${encodeURIComponent(db)}/${encodeURIComponent(coll)}`);
  await page.getByRole('tab', { name: 'Items' }).click();
  await page.locator('#cosmos-sql').fill(`SELECT * FROM c WHERE c.id = '${id}'`);
  await page.locator('#cosmos-run').click();
  await page.locator('#cosmos-status').filter({ hasText: '1 results' }).waitFor();
  await page.getByRole('link', { name: id, exact: true }).click();
  const itemJSON = page.locator('#cosmos-item-json');
  await itemJSON.waitFor();
  const text = await itemJSON.inputValue();
  for (const literal of ['"ratio": 1.0', '"negzero": -0.0', '"big": 12345678901234567891', '9007199254740993', '"weight": 2.50']) {
    assert.ok(text.includes(literal), `the editor shows ${literal}:\n${text}`);
  }
  const keys = [...text.matchAll(/^  "([^"]+)":/gm)].map((m) => m[1]);
  const firstSystem = keys.findIndex((k) => k.startsWith('_'));
  assert.ok(firstSystem > 0 && keys.slice(firstSystem).every((k) => k.startsWith('_')), `user fields first: ${keys}`);
  await page.locator('#cosmos-replace').click();
  await page.locator('#cosmos-item .status.ok').filter({ hasText: 'Replaced' }).waitFor();
  assert.ok((await itemJSON.inputValue()).includes('"ratio": 1.0'));
});

test('Cosmos DB: a new database, container and item, and the item deleted', async () => {
  await open('#/cosmos');
  await page.getByLabel('database name').fill('console-db');
  await page.getByRole('button', { name: 'Create database' }).click();
  await page.getByLabel('container name').fill('notes');
  await page.getByLabel('partition key path').fill('/owner');
  await page.getByRole('button', { name: 'Create container' }).click();
  await page.locator('#cosmos-new').click();
  const draft = page.locator('#cosmos-new-json');
  assert.deepEqual(JSON.parse(await draft.inputValue()), { id: '', owner: '' });
  await draft.fill('{"id": "n1", "owner": "ana", "score": 1.0, "big": 9007199254740993}');
  await page.locator('#cosmos-create').click();
  await page.locator('#cosmos-item .status.ok').filter({ hasText: 'Created' }).waitFor();
  const text = await page.locator('#cosmos-item-json').inputValue();
  assert.ok(text.indexOf('"score": 1.0') > 0 && text.indexOf('"big": 9007199254740993') > 0 && text.indexOf('"owner"') < text.indexOf('"_rid"'), text);
  const itemURL = `${consoleURL}console/api/cosmos/dbs/console-db/colls/notes/docs/n1`;
  const headers = { 'X-Cerulean-Console': '1', 'x-ms-documentdb-partitionkey': '["ana"]' };
  const made = await fetch(itemURL, { headers });
  assert.equal(made.status, 200);
  assert.match(await made.text(), /"score":1\.0/);
  await screenshot('cosmos-new-item');

  await page.locator('#cosmos-delete').click();
  await page.locator('#cosmos-item .status.ok').filter({ hasText: 'Deleted n1' }).waitFor();
  assert.equal((await fetch(itemURL, { headers })).status, 404);
});

test('Search explorer: text and $filter', async () => {
  await open(`#/search/${encodeURIComponent(env('CERULEAN_CONSOLE_SEARCH_INDEX'))}`);
  await page.locator('#search-text').fill('rooms');
  await page.locator('#search-filter').fill("city eq 'Lisbon'");
  await page.locator('#search-orderby').fill('rating desc');
  await page.locator('#search-run').click();
  await page.locator('#search-status').filter({ hasText: '2 matching' }).waitFor();
  const res = JSON.parse(await page.locator('#search-results').innerText());
  assert.deepEqual(res.value.map((d) => d.name), ['Harbour View', 'Seaside Budget']);
  await screenshot('search-explorer');
});

test('Search: create an index, upload documents, edit the definition', async () => {
  await open('#/search');
  await page.locator('details summary').filter({ hasText: 'Create an index' }).click();
  const def = { name: 'console-notes', fields: [
    { name: 'id', type: 'Edm.String', key: true, filterable: true },
    { name: 'title', type: 'Edm.String', searchable: true },
    { name: 'score', type: 'Edm.Double', filterable: true, sortable: true },
  ] };
  await page.locator('#index-new-json').fill(JSON.stringify(def, null, 2));
  await page.locator('#index-create').click();
  await page.locator('#index-fields').filter({ hasText: 'score' }).waitFor();

  await page.locator('#upload-panel summary').click();
  await page.locator('#docs-json').fill(JSON.stringify([{ id: '1', title: 'hello world', score: 1.5 }, { id: '2', title: 'goodbye moon', score: 2 }], null, 2));
  await page.locator('#docs-upload').click();
  await page.locator('#docs-status .status.ok').filter({ hasText: '2 of 2 documents indexed' }).waitFor();
  await page.locator('#search-text').fill('hello');
  await page.locator('#search-run').click();
  await page.locator('#search-status').filter({ hasText: '1 matching' }).waitFor();
  assert.deepEqual(JSON.parse(await page.locator('#search-results').innerText()).value.map((d) => d.id), ['1']);

  await page.locator('#definition-panel summary').click();
  const current = JSON.parse(await page.locator('#index-json').inputValue());
  current.fields.push({ name: 'tag', type: 'Edm.String', filterable: true });
  await page.locator('#index-json').fill(JSON.stringify(current, null, 2));
  await page.locator('#index-save').click();
  await page.locator('#index-status .status.ok').waitFor();
  await page.locator('#index-fields td', { hasText: /^tag$/ }).waitFor();
  await screenshot('search-index');
  const saved = await (await fetch(`${consoleURL}console/api/search/indexes/console-notes?api-version=2024-07-01`, { headers: { 'X-Cerulean-Console': '1' } })).json();
  assert.ok(saved.fields.some((f) => f.name === 'tag'), JSON.stringify(saved.fields));
});

test('Queues: put, peek, dequeue and delete one message, clear, delete the queue', async () => {
  await open('#/queue');
  await page.getByLabel('queue name').fill('console-jobs');
  await page.getByRole('button', { name: 'Create queue' }).click();
  for (const text of ['<hello & welcome>', 'second job']) {
    await page.locator('#message-text').fill(text);
    await page.getByRole('button', { name: 'Put message' }).click();
    await page.locator('#message-list').filter({ hasText: text }).waitFor();
  }
  // The first message, dequeued, is invisible to a peek and deleted by
  // its pop receipt; the second stays.
  await page.getByRole('button', { name: 'Dequeue' }).click();
  const dequeued = page.locator('#dequeued-message');
  await dequeued.filter({ hasText: '<hello & welcome>' }).waitFor();
  await page.locator('#message-list').filter({ hasNotText: '<hello & welcome>' }).filter({ hasText: 'second job' }).waitFor();
  await screenshot('queue-dequeue');
  await dequeued.getByRole('button', { name: 'Delete message' }).click();
  await page.locator('#dequeued .status.ok').filter({ hasText: 'Deleted message' }).waitFor();
  const count = await fetch(`${consoleURL}console/api/queue/console-jobs?comp=metadata`, { headers: { 'X-Cerulean-Console': '1' } });
  assert.equal(count.headers.get('x-ms-approximate-messages-count'), '1');

  await page.getByRole('button', { name: 'Clear queue' }).click();
  await page.locator('#message-list').filter({ hasText: 'No visible messages.' }).waitFor();
  await page.getByRole('button', { name: 'Delete queue' }).click();
  await page.waitForURL(/#\/queue$/);
  await page.getByRole('button', { name: 'Create queue' }).waitFor();
  assert.equal(await page.getByRole('link', { name: 'console-jobs', exact: true }).count(), 0);
  const gone = await fetch(`${consoleURL}console/api/queue/console-jobs?comp=metadata`, { headers: { 'X-Cerulean-Console': '1' } });
  assert.equal(gone.status, 404);
});

test('Files: a share, a directory, an upload and its listing', async () => {
  await open('#/file');
  await page.getByLabel('share name').fill('console-share');
  await page.getByRole('button', { name: 'Create share' }).click();
  await page.getByLabel('directory name').fill('reports');
  await page.getByRole('button', { name: 'New directory' }).click();
  await page.getByRole('link', { name: 'reports/' }).click();
  // The share's own view has the same upload form: wait for the
  // directory's view to replace it before choosing the file.
  await page.getByRole('heading', { name: 'console-share/reports/' }).waitFor();
  await page.getByLabel('files to upload').setInputFiles(env('CERULEAN_CONSOLE_UPLOAD'));
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  const row = page.locator('#file-list tr[data-file="uploaded-in-console.bin"]');
  await row.waitFor();
  assert.match(await row.innerText(), /300\.0 KiB/);
  assert.match(await row.locator('.etag').innerText(), /0x[0-9A-F]+/);
  const download = page.waitForEvent('download');
  await row.getByRole('button', { name: 'Download' }).click();
  assert.equal((await download).suggestedFilename(), 'uploaded-in-console.bin');
});

test('the account switcher offers every configured Storage account, and each shows its own data', async () => {
  const multi = env('CERULEAN_CONSOLE_MULTI_URL');
  await page.goto(multi + '#/');
  const pick = page.getByLabel('Storage account');
  const [first, second] = env('CERULEAN_CONSOLE_ACCOUNTS').split(',');
  // The page fills the switcher once it has read the accounts: wait for
  // the last one before reading the list.
  await pick.locator('option', { hasText: second }).waitFor({ state: 'attached' });
  assert.deepEqual(await pick.locator('option').allTextContents(), env('CERULEAN_CONSOLE_ACCOUNTS').split(','));
  const blobCard = page.locator('section.card[data-service=blob]');
  await blobCard.getByRole('link', { name: env('CERULEAN_CONSOLE_CONTAINER'), exact: true }).waitFor();

  await pick.selectOption(second);
  await page.locator('#overview-account').filter({ hasText: second }).waitFor();
  await blobCard.filter({ hasText: 'None yet.' }).waitFor();
  await page.goto(multi + '#/blob');
  await page.getByLabel('container name').fill('made-in-second-account');
  await page.getByRole('button', { name: 'Create container' }).click();
  await page.locator('#upload-prefix').waitFor();
  await page.goto(multi + '#/');
  await blobCard.getByRole('link', { name: 'made-in-second-account', exact: true }).waitFor();
  assert.equal(await page.getByLabel('Storage account').inputValue(), second);
  await screenshot('account-switcher');

  await page.getByLabel('Storage account').selectOption(first);
  await blobCard.getByRole('link', { name: env('CERULEAN_CONSOLE_CONTAINER'), exact: true }).waitFor();
  assert.equal(await blobCard.getByRole('link', { name: 'made-in-second-account', exact: true }).count(), 0);
});
