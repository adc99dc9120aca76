// Throughput through @azure/cosmos: manual and autoscale at create,
// container.readOffer() (a query on /offers by the container's _self) and
// Offer.replace.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { endpoint, newClient } from "./emulator.mjs";

const client = newClient();
let database;

before(async () => {
  assert.ok(endpoint, "CERULEAN_COSMOS_ENDPOINT must be set");
  ({ database } = await client.databases.createIfNotExists({ id: "offerdb" }));
});

test("manual throughput: read and replace the container's offer", async () => {
  const { container } = await database.containers.create({ id: "manual", partitionKey: { paths: ["/pk"] }, throughput: 500 });
  const { resource: offer, offer: handle } = await container.readOffer();
  assert.ok(offer, "the container has an offer");
  assert.equal(offer.content.offerThroughput, 500);
  assert.equal(offer.offerVersion, "V2");
  const { resource: c } = await container.read();
  assert.equal(offer.offerResourceId, c._rid);
  assert.equal(offer.resource, c._self);

  offer.content.offerThroughput = 1000;
  const { resource: replaced } = await handle.replace(offer);
  assert.equal(replaced.content.offerThroughput, 1000);
  const { resource: again } = await container.readOffer();
  assert.equal(again.content.offerThroughput, 1000);

  const { container: plain } = await database.containers.create({ id: "no-throughput", partitionKey: { paths: ["/pk"] } });
  const { resource: none } = await plain.readOffer();
  assert.equal(none, undefined);
});

test("autoscale throughput at create", async () => {
  const { container } = await database.containers.create({ id: "auto", partitionKey: { paths: ["/pk"] }, maxThroughput: 4000 });
  const { resource: offer } = await container.readOffer();
  assert.equal(offer.content.offerAutopilotSettings.maxThroughput, 4000);
  await assert.rejects(database.containers.create({ id: "bad", partitionKey: { paths: ["/pk"] }, maxThroughput: 1234 }), (err) => {
    assert.equal(err.code, 400);
    return true;
  });
});
