"""Drives cerulean's Cosmos gateway with the legacy Python SDK (Debian's
python3-azure-cosmos 3.1.1). Every step asserts; the script prints
"ok <step>" per step and exits non-zero on the first failure."""

import os
import sys

import azure.cosmos.cosmos_client as cosmos_client
import azure.cosmos.errors as errors

endpoint = os.environ["CERULEAN_COSMOS_ENDPOINT"]
key = os.environ["CERULEAN_COSMOS_KEY"]
client = cosmos_client.CosmosClient(endpoint, {"masterKey": key})


def ok(step):
    print("ok " + step, flush=True)


def expect_failure(status, fn):
    try:
        fn()
    except errors.HTTPFailure as e:
        assert e.status_code == status, "want %d, got %d: %s" % (status, e.status_code, e)
        return e
    raise AssertionError("want HTTP %d, the call succeeded" % status)


# Databases and containers, by id link; then everything else by _self.
db = client.CreateDatabase({"id": "legacy"})
assert db["id"] == "legacy" and db["_self"].startswith("dbs/"), db
coll = client.CreateContainer(
    db["_self"],
    {"id": "items", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}},
)
assert coll["id"] == "items" and coll["_self"].startswith(db["_self"]), coll
assert client.ReadContainer("dbs/legacy/colls/items")["_rid"] == coll["_rid"]
link = coll["_self"]
ok("create database and container")

# 25 items across 5 partitions.
for i in range(25):
    doc = client.UpsertItem(
        link, {"id": "item%02d" % i, "pk": "p%d" % (i % 5), "n": i, "odd": i % 2 == 1}
    )
    assert doc["id"] == "item%02d" % i and doc["_self"].startswith(link), doc
ok("upsert 25 items")


def pages(iterable):
    out = []
    while True:
        block = iterable.fetch_next_block()
        if not block:
            return out
        out.append(block)


def query(q, options):
    """Runs q to the end a page at a time; returns the pages and whether
    the SDK ran it from the gateway's query plan (a 400 with sub-status
    1004 carrying the plan) rather than as the gateway served it."""
    it = client.QueryItems(link, q, options)
    out = pages(it)
    planned = type(it._ex_context._execution_context).__name__ == "_PipelineExecutionContext"
    return out, planned


def values(q):
    out, planned = query(q, {"enableCrossPartitionQuery": True, "maxItemCount": 3})
    return [v for page in out for v in page], planned


# Paging at 4 a page: the SDK reads x-ms-continuation case-sensitively.
# The gateway serves a plain cross-partition query itself.
got, planned = query("SELECT * FROM c", {"maxItemCount": 4, "enableCrossPartitionQuery": True})
ids = [d["id"] for page in got for d in page]
assert not planned, "a plain cross-partition query needs no plan"
assert all(len(p) <= 4 for p in got), [len(p) for p in got]
assert len(got) >= 7, "want at least 7 pages of at most 4, got %d" % len(got)
assert len(ids) == 25 and len(set(ids)) == 25, ids
ok("query 25 items at 4 a page in %d pages" % len(got))

feed = pages(client.ReadItems(link, {"maxItemCount": 4}))
ids = [d["id"] for page in feed for d in page]
assert len(ids) == 25 and len(set(ids)) == 25, ids
assert len(feed) >= 7, "want at least 7 pages of at most 4, got %d" % len(feed)
ok("read feed 25 items at 4 a page")

# Within one partition, with its key.
single, planned = query(
    {"query": "SELECT * FROM c WHERE c.n >= @n", "parameters": [{"name": "@n", "value": 10}]},
    {"partitionKey": "p3", "maxItemCount": 1},
)
assert not planned
assert [d["n"] for page in single for d in page] == [13, 18, 23], single
assert len(single) == 3, single
ok("single-partition query")

# Cross-partition ORDER BY, TOP and aggregates: the gateway refuses them
# without a query plan and the SDK runs them from the plan in that answer.
got, planned = values("SELECT c.id, c.n FROM c ORDER BY c.n DESC")
assert planned, "ORDER BY across partitions runs from the plan"
assert [d["n"] for d in got] == list(range(24, -1, -1)), got
got, planned = values("SELECT TOP 5 VALUE c.n FROM c ORDER BY c.n")
assert planned and got == [0, 1, 2, 3, 4], got
got, planned = values("SELECT c.id FROM c WHERE c.pk = 'p1' ORDER BY c.id")
assert [d["id"] for d in got] == ["item01", "item06", "item11", "item16", "item21"], got
ok("cross-partition ORDER BY")

for q, want in [
    ("SELECT VALUE COUNT(1) FROM c", 25),
    ("SELECT VALUE SUM(c.n) FROM c WHERE c.odd", sum(i for i in range(25) if i % 2 == 1)),
    ("SELECT VALUE MAX(c.n) FROM c", 24),
    ("SELECT VALUE MIN(c.n) FROM c WHERE c.n > 3", 4),
    ("SELECT VALUE AVG(c.n) FROM c", 12),
]:
    got, planned = values(q)
    assert planned, q + " runs from the plan"
    assert got == [want], (q, got)
ok("cross-partition aggregates")

# Read, replace and delete by _self, with the partition key.
item = next(d for page in feed for d in page if d["id"] == "item07")
read = client.ReadItem(item["_self"], {"partitionKey": "p2"})
assert read["n"] == 7 and read["_rid"] == item["_rid"], read
by_name = client.ReadItem("dbs/legacy/colls/items/docs/item07", {"partitionKey": "p2"})
assert by_name["_etag"] == read["_etag"], by_name
ok("read by _self link")

stale = read["_etag"]
read["n"] = 700
replaced = client.ReplaceItem(
    read["_self"],
    read,
    {"partitionKey": "p2", "accessCondition": {"type": "IfMatch", "condition": stale}},
)
assert replaced["n"] == 700 and replaced["_etag"] != stale, replaced
expect_failure(
    412,
    lambda: client.ReplaceItem(
        read["_self"],
        read,
        {"partitionKey": "p2", "accessCondition": {"type": "IfMatch", "condition": stale}},
    ),
)
ok("replace with IfMatch, 412 on a stale etag")

client.DeleteItem(replaced["_self"], {"partitionKey": "p2"})
expect_failure(404, lambda: client.ReadItem(replaced["_self"], {"partitionKey": "p2"}))
ok("delete")

# Session consistency as this SDK keeps it: the token of the container's
# last write, per partition key range; a read with a token from the
# future is 404 with substatus 1002 (ReadSessionNotAvailable).
token = client.session.get_session_token(link)
assert token.startswith("0:"), token
got = client.ReadItem("dbs/legacy/colls/items/docs/item08", {"partitionKey": "p3", "sessionToken": token})
assert got["n"] == 8, got
e = expect_failure(
    404,
    lambda: client.ReadItem(
        "dbs/legacy/colls/items/docs/item08", {"partitionKey": "p3", "sessionToken": "0:-1#4611686018427387904"}
    ),
)
assert e.sub_status == 1002, e.sub_status
ok("session tokens kept per range; a token from the future is 404/1002")

# The change feed, per partition key range, from the beginning and then
# from the etag the last page answered with.
ranges = list(client._ReadPartitionKeyRanges(link))
assert ranges, ranges
seen = {}
etags = {}
for r in ranges:
    it = client.QueryItemsChangeFeed(link, {"partitionKeyRangeId": r["id"], "maxItemCount": 4})
    for d in it:
        assert d["id"] not in seen, "repeated " + d["id"]
        seen[d["id"]] = d
    etags[r["id"]] = client.last_response_headers["etag"]
assert len(seen) == 24 and "item07" not in seen, sorted(seen)
for r in ranges:
    again = list(
        client.QueryItemsChangeFeed(
            link, {"partitionKeyRangeId": r["id"], "continuation": etags[r["id"]]}
        )
    )
    assert again == [], again
client.UpsertItem(link, {"id": "late", "pk": "p4", "n": 99})
news = []
for r in ranges:
    news += [
        d["id"]
        for d in client.QueryItemsChangeFeed(
            link, {"partitionKeyRangeId": r["id"], "continuation": etags[r["id"]]}
        )
    ]
assert news == ["late"], news
ok("change feed over %d range(s)" % len(ranges))

# Throughput: the container's offer, found by query on its _self, replaced.
coll2 = client.CreateContainer(
    db["_self"],
    {"id": "provisioned", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}},
    {"offerThroughput": 500},
)
offers = list(
    client.QueryOffers(
        {
            "query": "SELECT * FROM root r WHERE r.resource = @link",
            "parameters": [{"name": "@link", "value": coll2["_self"]}],
        }
    )
)
assert len(offers) == 1 and offers[0]["content"]["offerThroughput"] == 500, offers
offer = offers[0]
assert offer["offerResourceId"] == coll2["_rid"], offer
offer["content"]["offerThroughput"] = 800
client.ReplaceOffer(offer["_self"], offer)
assert client.ReadOffer(offer["_self"])["content"]["offerThroughput"] == 800
ok("offer read and replace")

# A Read permission's resource token, keyed the way this SDK looks tokens
# up (by the last resource id in the path): reads pass, writes are 403.
user = client.CreateUser(db["_self"], {"id": "reader"})
perm = client.CreatePermission(
    user["_self"], {"id": "read-items", "permissionMode": "Read", "resource": link}
)
reader = cosmos_client.CosmosClient(endpoint, {"resourceTokens": {coll["_rid"]: perm["_token"]}})
other = client.ReadItem("dbs/legacy/colls/items/docs/item08", {"partitionKey": "p3"})
assert reader.ReadItem(other["_self"], {"partitionKey": "p3"})["n"] == 8
expect_failure(403, lambda: reader.UpsertItem(link, {"id": "nope", "pk": "p3"}))
expect_failure(403, lambda: reader.DeleteItem(other["_self"], {"partitionKey": "p3"}))
ok("resource token confined to its Read grant")

client.DeleteContainer(link)
client.DeleteDatabase(db["_self"])
expect_failure(404, lambda: client.ReadDatabase("dbs/legacy"))
ok("delete container and database")
print("PASS")
