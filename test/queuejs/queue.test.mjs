// Queue messages through @azure/storage-queue, which sends message text as
// the caller gives it (12.27.0 has no message encoding option, unlike the
// Python SDK's encode policies): text with XML metacharacters, quotes,
// tabs, whitespace alone, characters beyond the BMP and 64 KiB of them
// must come back exactly, from Peek, Receive and after Update, and so
// must the base64 text callers encode binary payloads to. The connection
// string comes from CERULEAN_CONNECTION_STRING (js_test.go starts a
// server and sets it). Line ends are left out: the SDK deletes every LF
// from the XML it sends, whatever the server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { QueueServiceClient, StorageSharedKeyCredential } from "@azure/storage-queue";

const connectionString = process.env.CERULEAN_CONNECTION_STRING;

async function newQueue(name) {
  assert.ok(connectionString, "CERULEAN_CONNECTION_STRING must be set");
  const queue = QueueServiceClient.fromConnectionString(connectionString).getQueueClient(name);
  await queue.create();
  return queue;
}

const texts = [
  `<tag attr="v">a & b</tag>`,
  "tab\there 'single' \"double\" &amp; &lt;not an entity&gt;",
  "ünïcödé ✓ 𝄞 日本語 🙂",
  "]]> <![CDATA[x]]>",
  "   leading and trailing spaces   ",
  Buffer.from([0, 1, 2, 0xfe, 0xff, 0x80, 0x3c, 0x26]).toString("base64"),
  " \t ",
  "\uFFFD \uE000 \u{10FFFD}",
  "🙂".repeat(64 * 1024 / 4),
  `<&>"'`.repeat(Math.floor((64 * 1024) / 5)),
];

test("message text round-trips through send, peek and receive", async () => {
  const queue = await newQueue("jsmessagetext");
  for (const text of texts) {
    await queue.sendMessage(text);
  }
  const peeked = await queue.peekMessages({ numberOfMessages: texts.length });
  assert.deepEqual(peeked.peekedMessageItems.map((m) => m.messageText), texts);
  const received = await queue.receiveMessages({ numberOfMessages: texts.length });
  assert.deepEqual(received.receivedMessageItems.map((m) => m.messageText), texts);
  await queue.delete();
});

test("message text round-trips through update", async () => {
  const queue = await newQueue("jsupdatetext");
  const sent = await queue.sendMessage("first");
  let receipt = sent.popReceipt;
  for (const text of texts) {
    const updated = await queue.updateMessage(sent.messageId, receipt, text, 0);
    receipt = updated.popReceipt;
    const [peeked] = (await queue.peekMessages()).peekedMessageItems;
    assert.equal(peeked.messageText, text);
  }
  await queue.delete();
});

// A character XML does not allow goes out as it is and is refused as
// Azure refuses it (the Python SDK's recording
// test_queue_encodings.test_message_text_xml_invalid_chars: 400
// InvalidXmlDocument); 64 KiB + 1 byte is 413 RequestBodyTooLarge.
test("text XML cannot carry, or over 64 KiB, is refused", async () => {
  const queue = await newQueue("jsrefusedtext");
  await assert.rejects(queue.sendMessage("a\u0001b"), (err) => err.statusCode === 400 && err.code === "InvalidXmlDocument");
  await assert.rejects(queue.sendMessage("x".repeat(64 * 1024 + 1)), (err) => err.statusCode === 413 && err.code === "RequestBodyTooLarge");
  const peeked = await queue.peekMessages();
  assert.equal(peeked.peekedMessageItems.length, 0);
  await queue.delete();
});

// The read-only secondary endpoint, path style (the account name with
// "-secondary" as the first path segment), signed with the primary's key
// as the SDK signs it.
test("the path-style secondary endpoint answers reads and refuses writes", async () => {
  const queue = await newQueue("jssecondary");
  await queue.sendMessage("readable from the secondary");
  const fields = Object.fromEntries(connectionString.split(";").filter(Boolean).map((kv) => {
    const i = kv.indexOf("=");
    return [kv.slice(0, i), kv.slice(i + 1)];
  }));
  const primary = fields.QueueEndpoint.replace(/\/$/, "");
  assert.ok(primary.endsWith("/" + fields.AccountName), `path-style endpoint expected, got ${primary}`);
  const credential = new StorageSharedKeyCredential(fields.AccountName, fields.AccountKey);
  const secondary = new QueueServiceClient(primary + "-secondary", credential).getQueueClient("jssecondary");
  const peeked = await secondary.peekMessages();
  assert.deepEqual(peeked.peekedMessageItems.map((m) => m.messageText), ["readable from the secondary"]);
  const props = await secondary.getProperties();
  assert.equal(props.approximateMessagesCount, 1);
  const stats = await new QueueServiceClient(primary + "-secondary", credential).getStatistics();
  assert.equal(stats.geoReplication.status, "live");
  await assert.rejects(secondary.sendMessage("x"), (err) => err.statusCode === 403 && err.code === "InsufficientAccountPermissions");
  await assert.rejects(secondary.receiveMessages(), (err) => err.statusCode === 403 && err.code === "InsufficientAccountPermissions");
  await queue.delete();
});
