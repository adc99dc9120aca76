// The server the tests here run against: js_test.go starts it and sets
// CERULEAN_COSMOS_ENDPOINT (and CERULEAN_COSMOS_KEY; without it the key
// is the emulator's well-known one).
import { CosmosClient } from "@azure/cosmos";

export const endpoint = process.env.CERULEAN_COSMOS_ENDPOINT;
export const key =
  process.env.CERULEAN_COSMOS_KEY ??
  "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";
export const connectionPolicy = { enableEndpointDiscovery: false };

// newClient is a client with the account key.
export function newClient() {
  return new CosmosClient({ endpoint, key, connectionPolicy });
}
