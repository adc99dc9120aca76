// Helpers the JavaScript storage suites (blobjs, filejs) share; they use
// only node's own modules, so each suite's node_modules serves.
import assert from "node:assert/strict";

// expectError awaits promise and checks that it fails with the HTTP
// status and the Azure error code.
export async function expectError(promise, status, code) {
  await assert.rejects(promise, (err) => {
    assert.equal(err.statusCode, status, `want ${status}, got ${err.statusCode}: ${err.message}`);
    assert.equal(err.details?.errorCode ?? err.code, code, `want ${code}: ${err.message}`);
    return true;
  });
}

// readAll reads a download stream to its end.
export async function readAll(stream) {
  const parts = [];
  for await (const part of stream) parts.push(part);
  return Buffer.concat(parts);
}
