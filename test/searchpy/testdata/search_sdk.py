# Drives cerulean's AI Search endpoint over HTTPS with the Python SDK Debian
# packages (azure-search-documents 11.4.0b3 in python3-azure), at the
# api-version it sends by default. Each step prints "ok <step>"; the first
# failure raises and exits non-zero.
import os
import sys

from azure.core import MatchConditions
from azure.core.credentials import AzureKeyCredential
from azure.core.exceptions import HttpResponseError, ResourceNotFoundError
from azure.search.documents import SearchClient
from azure.search.documents.indexes import SearchIndexClient
from azure.search.documents.indexes.models import (
    SearchableField,
    SearchFieldDataType,
    SearchIndex,
    SimpleField,
)

endpoint = os.environ["CERULEAN_SEARCH_ENDPOINT"]
key = AzureKeyCredential(os.environ["CERULEAN_SEARCH_ADMIN_KEY"])
seen = []


def record(response):
    seen.append(response.http_request.url)


def ok(step):
    print("ok", step, flush=True)


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


indexes = SearchIndexClient(endpoint, key)
fields = [
    SimpleField(name="id", type=SearchFieldDataType.String, key=True),
    SearchableField(name="name", type=SearchFieldDataType.String),
    SimpleField(name="rating", type=SearchFieldDataType.Int32, filterable=True, facetable=True, sortable=True),
    SearchableField(name="tags", collection=True, type=SearchFieldDataType.String, filterable=True, facetable=True),
]
created = indexes.create_index(SearchIndex(name="hotels", fields=fields), raw_request_hook=record)
expect(created.name == "hotels" and created.e_tag, "create_index answered %r" % created)
expect(seen and seen[0].startswith("https://"), "not over HTTPS: %s" % seen)
version = seen[0].split("api-version=")[1].split("&")[0]
ok("create index over https at api-version " + version)

current = indexes.get_index("hotels")
stale = indexes.get_index("hotels")
current.fields.append(SimpleField(name="city", type=SearchFieldDataType.String, filterable=True))
updated = indexes.create_or_update_index(current, match_condition=MatchConditions.IfNotModified)
expect(updated.e_tag != stale.e_tag, "the ETag did not change on update")
try:
    stale.fields.append(SimpleField(name="other", type=SearchFieldDataType.String))
    indexes.create_or_update_index(stale, match_condition=MatchConditions.IfNotModified)
    raise AssertionError("an update under a stale ETag succeeded")
except HttpResponseError as e:
    expect(e.status_code == 412, "stale update answered %s" % e.status_code)
ok("update index under its etag, 412 on a stale one")

docs = SearchClient(endpoint, "hotels", key)
results = docs.upload_documents(documents=[
    {"id": "1", "name": "Fancy Stay", "rating": 5, "tags": ["pool", "view"], "city": "Seattle"},
    {"id": "2", "name": "Roach Motel", "rating": 1, "tags": ["motel", "budget"], "city": "Seattle"},
    {"id": "3", "name": "EconoStay budget", "rating": 4, "tags": ["budget"], "city": "Portland"},
    {"id": "4", "name": "Modern Stay"},
])
expect(len(results) == 4 and all(r.succeeded for r in results), "upload: %r" % [(r.key, r.succeeded) for r in results])
ok("upload documents")

# 11.4.0b3 passes order_by to its request model unjoined, so a list goes
# out as "['rating desc']" (which Azure refuses too): give it the string.
hits = docs.search(search_text="stay budget", filter="rating ge 3", include_total_count=True, facets=["rating"], order_by="rating desc")
ids = [h["id"] for h in hits]
expect(ids == ["1", "3"], "search ids %s" % ids)
expect(hits.get_count() == 2, "count %s" % hits.get_count())
facets = hits.get_facets()
expect([(f["value"], f["count"]) for f in facets["rating"]] == [(5, 1), (4, 1)] or
       sorted((f["value"], f["count"]) for f in facets["rating"]) == [(4, 1), (5, 1)], "facets %s" % facets)
ok("search with filter, order, count and facets")

doc = docs.get_document(key="4")
expect(doc["name"] == "Modern Stay" and doc["tags"] == [] and doc["rating"] is None, "lookup %r" % doc)
expect(docs.get_document_count() == 4, "document count")
ok("lookup and count")

docs.merge_documents(documents=[{"id": "2", "rating": 2}])
docs.delete_documents(documents=[{"id": "4"}])
expect(docs.get_document(key="2")["rating"] == 2, "merge")
try:
    docs.get_document(key="4")
    raise AssertionError("a deleted document was found")
except ResourceNotFoundError:
    pass
ok("merge and delete documents")

indexes.delete_index("hotels")
try:
    indexes.get_index("hotels")
    raise AssertionError("a deleted index was found")
except ResourceNotFoundError:
    pass
ok("delete index")
print("PASS")
