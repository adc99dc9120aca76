# Drives cerulean's Blob, Queue, Table and File services with the Python
# Storage SDKs Debian packages (azure-storage-blob 12.15.0b1,
# azure-storage-queue 12.6.0b1, azure-storage-file-share 12.11.0b1 and
# azure-data-tables 12.4.2, in python3-azure), each client built from the
# account's connection string. Each step prints "ok <step>"; the first
# failure raises and exits non-zero.
import hashlib
import os
import time
import uuid
from datetime import datetime, timedelta, timezone

from azure.core import MatchConditions
from azure.core.credentials import AzureSasCredential
from azure.core.exceptions import HttpResponseError, ResourceNotFoundError
from azure.data.tables import (
    EdmType,
    EntityProperty,
    TableAccessPolicy,
    TableAnalyticsLogging,
    TableCorsRule,
    TableMetrics,
    TableRetentionPolicy,
    TableClient,
    TableSasPermissions,
    TableServiceClient,
    TableTransactionError,
    UpdateMode,
    generate_table_sas,
)
from azure.storage.blob import (
    AccessPolicy as BlobAccessPolicy,
    AccountSasPermissions,
    BlobAnalyticsLogging,
    BlobBlock,
    BlobClient,
    BlobSasPermissions,
    BlobServiceClient,
    BlobType,
    ContainerSasPermissions,
    ContentSettings as BlobContentSettings,
    CorsRule as BlobCorsRule,
    Metrics as BlobMetrics,
    ResourceTypes,
    RetentionPolicy as BlobRetentionPolicy,
    StaticWebsite,
    generate_account_sas,
    generate_blob_sas,
)
from azure.storage.fileshare import (
    AccessPolicy as FileAccessPolicy,
    ContentSettings as FileContentSettings,
    CorsRule as FileCorsRule,
    FileSasPermissions,
    Metrics as FileMetrics,
    NTFSAttributes,
    RetentionPolicy as FileRetentionPolicy,
    ShareFileClient,
    ShareProtocolSettings,
    ShareSasPermissions,
    ShareServiceClient,
    ShareSmbSettings,
    SmbMultichannel,
    generate_file_sas,
)
from azure.storage.queue import (
    AccessPolicy as QueueAccessPolicy,
    BinaryBase64DecodePolicy,
    BinaryBase64EncodePolicy,
    CorsRule as QueueCorsRule,
    Metrics as QueueMetrics,
    QueueAnalyticsLogging,
    QueueClient,
    QueueSasPermissions,
    QueueServiceClient,
    RetentionPolicy as QueueRetentionPolicy,
    generate_queue_sas,
)

conn = os.environ["CERULEAN_STORAGE_CONNECTION_STRING"]
# Stored access policies carry whole seconds.
start = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(minutes=5)
expiry = start + timedelta(days=1)


def ok(step):
    print("ok", step, flush=True)


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def refused(call, code):
    """Runs call, which must raise an HttpResponseError with error_code code."""
    try:
        call()
    except HttpResponseError as e:
        got = getattr(e, "error_code", None)
        if got is None and e.response is not None:
            # azure-data-tables 12.4.2 re-raises some errors (create_entity's)
            # without decoding them: read the OData error body.
            got = e.response.json().get("odata.error", {}).get("code")
        expect(got == code, "error_code %r (status %s), want %r" % (got, e.status_code, code))
        return
    raise AssertionError("the call succeeded, want error_code %r" % code)


def same_time(got, want):
    """Whether got, a datetime or an ISO 8601 UTC string, is the instant want."""
    if isinstance(got, str):
        whole = got.rstrip("Z").split(".")
        expect(len(whole) == 1 or whole[1].strip("0") == "", "fractional seconds in %r" % got)
        got = datetime.strptime(whole[0], "%Y-%m-%dT%H:%M:%S")
    return got is not None and got.replace(tzinfo=timezone.utc) == want


def wait_copy(get_props, what):
    """Polls get_props until the copy it reports is no longer pending."""
    for _ in range(50):
        props = get_props()
        if props.copy.status != "pending":
            expect(props.copy.status == "success", "%s copy status %r" % (what, props.copy.status))
            return props
        time.sleep(0.1)
    raise AssertionError("%s copy still pending" % what)


# Blob.

blobs = BlobServiceClient.from_connection_string(conn)
blobs.set_service_properties(
    analytics_logging=BlobAnalyticsLogging(read=True, write=True, delete=False,
                                           retention_policy=BlobRetentionPolicy(enabled=True, days=5)),
    hour_metrics=BlobMetrics(enabled=True, include_apis=True, retention_policy=BlobRetentionPolicy(enabled=True, days=6)),
    minute_metrics=BlobMetrics(enabled=False),
    cors=[BlobCorsRule(["https://example.com"], ["GET", "PUT"], allowed_headers=["x-ms-meta-*"],
                       exposed_headers=["x-ms-request-id"], max_age_in_seconds=300)],
    delete_retention_policy=BlobRetentionPolicy(enabled=True, days=2),
    static_website=StaticWebsite(enabled=True, index_document="index.html", error_document404_path="404.html"),
)
props = blobs.get_service_properties()
log = props["analytics_logging"]
expect(log.read and log.write and not log.delete, "logging %r" % log)
expect(log.retention_policy.enabled and log.retention_policy.days == 5, "logging retention %r" % log.retention_policy)
hour = props["hour_metrics"]
expect(hour.enabled and hour.include_apis and hour.retention_policy.days == 6, "hour metrics %r" % hour)
expect(not props["minute_metrics"].enabled, "minute metrics %r" % props["minute_metrics"])
cors = props["cors"]
expect(len(cors) == 1, "cors %r" % cors)
expect(cors[0].allowed_origins == "https://example.com" and cors[0].allowed_methods == "GET,PUT", "cors %r" % cors[0])
expect(cors[0].allowed_headers == "x-ms-meta-*" and cors[0].exposed_headers == "x-ms-request-id", "cors %r" % cors[0])
expect(cors[0].max_age_in_seconds == 300, "cors max age %r" % cors[0].max_age_in_seconds)
drp = props["delete_retention_policy"]
expect(drp.enabled and drp.days == 2, "delete retention %r" % drp)
site = props["static_website"]
expect(site.enabled and site.index_document == "index.html" and site.error_document404_path == "404.html",
       "static website %r" % site)
ok("blob service properties set and read back")

info = blobs.get_account_information()
expect(info.get("sku_name") and info.get("account_kind"), "account information %r" % info)
ok("blob account information")

container = blobs.create_container("pyblobs", metadata={"origin": "python"})
listed = [c for c in blobs.list_containers(name_starts_with="pyblobs", include_metadata=True)]
expect([c.name for c in listed] == ["pyblobs"], "list_containers %r" % [c.name for c in listed])
expect(listed[0].metadata == {"origin": "python"}, "listed metadata %r" % listed[0].metadata)
container.set_container_metadata({"origin": "python", "step": "two"})
cprops = container.get_container_properties()
expect(cprops.name == "pyblobs" and cprops.metadata == {"origin": "python", "step": "two"}, "container properties %r" % cprops)
expect(cprops.etag and cprops.last_modified, "container etag and last modified")
container.set_container_access_policy(signed_identifiers={
    "readers": BlobAccessPolicy(permission=ContainerSasPermissions(read=True, list=True), start=start, expiry=expiry),
})
acl = container.get_container_access_policy()
ids = acl["signed_identifiers"]
expect(len(ids) == 1 and ids[0].id == "readers", "signed identifiers %r" % ids)
policy = ids[0].access_policy
expect(policy.permission == "rl", "stored permission %r" % policy.permission)
expect(same_time(policy.start, start) and same_time(policy.expiry, expiry), "stored times %r %r" % (policy.start, policy.expiry))
expect(acl["public_access"] is None, "public access %r" % acl["public_access"])
ok("container create, list, properties, metadata and access policy")

data = b"hello from python\n" * 10
blob = container.get_blob_client("docs/hello.txt")
blob.upload_blob(data, metadata={"kind": "greeting"}, content_settings=BlobContentSettings(
    content_type="text/plain", content_language="en", content_disposition="inline; filename=hello.txt",
    cache_control="no-cache"))
down = blob.download_blob()
expect(down.readall() == data, "downloaded bytes differ")
expect(down.properties.metadata == {"kind": "greeting"}, "download metadata %r" % down.properties.metadata)
dcs = down.properties.content_settings
expect(dcs.content_type == "text/plain" and dcs.content_language == "en", "download content settings %r" % dcs)
expect(dcs.content_disposition == "inline; filename=hello.txt" and dcs.cache_control == "no-cache",
       "download content settings %r" % dcs)
ok("upload and download with content settings and metadata")

bprops = blob.get_blob_properties()
expect(bprops.name == "docs/hello.txt" and bprops.container == "pyblobs", "blob names %r" % bprops)
expect(bprops.size == len(data) and bprops.blob_type == BlobType.BlockBlob, "size %r type %r" % (bprops.size, bprops.blob_type))
expect(bprops.metadata == {"kind": "greeting"}, "metadata %r" % bprops.metadata)
expect(bytes(bprops.content_settings.content_md5) == hashlib.md5(data).digest(), "content md5 %r" % bprops.content_settings.content_md5)
expect(bprops.content_settings.content_type == "text/plain", "content type %r" % bprops.content_settings.content_type)
expect(bprops.etag and bprops.last_modified and bprops.creation_time, "etag, last modified, creation time")
expect(bprops.lease.state == "available" and bprops.lease.status == "unlocked", "lease %r" % bprops.lease)
ok("get blob properties")

blob.set_blob_tags({"project": "cerulean", "lang": "python"})
expect(blob.get_blob_tags() == {"project": "cerulean", "lang": "python"}, "tags %r" % blob.get_blob_tags())
# The tag index is updated after the write; allow it a moment.
found = []
for _ in range(50):
    found = [(b.name, b.container_name) for b in blobs.find_blobs_by_tags("\"project\"='cerulean' AND \"lang\"='python'")]
    if found:
        break
    time.sleep(0.1)
expect(found == [("docs/hello.txt", "pyblobs")], "find_blobs_by_tags %r" % found)
ok("blob tags and find by tags")

lease = blob.acquire_lease(lease_duration=15)
expect(blob.get_blob_properties().lease.state == "leased", "lease state after acquire")
lease.renew()
refused(lambda: blob.set_blob_metadata({"kind": "nolease"}), "LeaseIdMissing")
refused(lambda: blob.upload_blob(b"overwrite", overwrite=True), "LeaseIdMissing")
blob.set_blob_metadata({"kind": "greeting"}, lease=lease)
lease.release()
expect(blob.get_blob_properties().lease.state == "available", "lease state after release")
ok("lease acquire, renew and release; writes refused without the lease")

snap = blob.create_snapshot()
expect(snap.get("snapshot"), "create_snapshot %r" % snap)
snapshot_blob = container.get_blob_client("docs/hello.txt", snapshot=snap["snapshot"])
expect(snapshot_blob.download_blob().readall() == data, "snapshot content")
entries = list(container.list_blobs(name_starts_with="docs/", include=["snapshots", "metadata", "tags"]))
snaps = [b for b in entries if b.snapshot]
bases = [b for b in entries if not b.snapshot]
expect([b.snapshot for b in snaps] == [snap["snapshot"]], "listed snapshots %r" % [b.snapshot for b in snaps])
expect(len(bases) == 1 and bases[0].metadata == {"kind": "greeting"}, "listed metadata %r" % [(b.name, b.metadata) for b in bases])
expect(bases[0].tags == {"project": "cerulean", "lang": "python"}, "listed tags %r" % bases[0].tags)
ok("snapshot and list with snapshots, metadata and tags")

blocks = container.get_blob_client("docs/blocks.bin")
blocks.stage_block("block-1", b"first,")
blocks.stage_block("block-2", b"second,")
blocks.stage_block("block-3", b"third")
committed, uncommitted = blocks.get_block_list("all")
expect(committed == [] and sorted(b.id for b in uncommitted) == ["block-1", "block-2", "block-3"],
       "uncommitted blocks %r" % [b.id for b in uncommitted])
blocks.commit_block_list([BlobBlock("block-3"), BlobBlock("block-1")])
committed, uncommitted = blocks.get_block_list("all")
expect([(b.id, b.size) for b in committed] == [("block-3", 5), ("block-1", 6)], "committed %r" % [(b.id, b.size) for b in committed])
expect(uncommitted == [], "uncommitted after commit %r" % [b.id for b in uncommitted])
expect(blocks.download_blob().readall() == b"thirdfirst,", "block blob content")
ok("stage, list and commit blocks")

append = container.get_blob_client("logs/append.log")
append.create_append_blob()
append.append_block(b"line one\n")
append.append_block(b"line two\n")
expect(append.download_blob().readall() == b"line one\nline two\n", "append blob content")
aprops = append.get_blob_properties()
expect(aprops.blob_type == BlobType.AppendBlob and aprops.append_blob_committed_block_count == 2,
       "append blob %r %r" % (aprops.blob_type, aprops.append_blob_committed_block_count))
ok("append blob create, append and read")

page = container.get_blob_client("disks/page.vhd")
page.create_page_blob(size=4096)
page.upload_page(b"\x01" * 512, offset=0, length=512)
page.upload_page(b"\x02" * 1024, offset=2048, length=1024)
ranges, cleared = page.get_page_ranges()
expect(ranges == [{"start": 0, "end": 511}, {"start": 2048, "end": 3071}], "page ranges %r" % ranges)
content = page.download_blob().readall()
expect(len(content) == 4096 and content[:512] == b"\x01" * 512 and content[512:2048] == b"\x00" * 1536, "page content")
expect(page.get_blob_properties().blob_type == BlobType.PageBlob, "page blob type")
ok("page blob create, upload pages and page ranges")

copy = container.get_blob_client("docs/copy.txt")
started = copy.start_copy_from_url(blob.url)
expect(started.get("copy_id") and started.get("copy_status") in ("success", "pending"), "start copy %r" % started)
cprops = wait_copy(copy.get_blob_properties, "blob")
expect(cprops.copy.id == started["copy_id"], "copy id %r" % cprops.copy.id)
expect(copy.download_blob().readall() == data, "copied content")
ok("copy a blob within the account")

copy.set_standard_blob_tier("Cool")
expect(copy.get_blob_properties().blob_tier == "Cool", "tier %r" % copy.get_blob_properties().blob_tier)
ok("set standard blob tier")

doomed = container.get_blob_client("trash/soft.txt")
doomed.upload_blob(b"keep me")
doomed.delete_blob()
try:
    doomed.get_blob_properties()
    raise AssertionError("a deleted blob is still found")
except ResourceNotFoundError:
    pass
deleted = [b for b in container.list_blobs(name_starts_with="trash/", include=["deleted"])]
expect([(b.name, b.deleted) for b in deleted] == [("trash/soft.txt", True)], "deleted listing %r" % [(b.name, b.deleted) for b in deleted])
doomed.undelete_blob()
expect(doomed.download_blob().readall() == b"keep me", "undeleted content")
ok("soft delete and undelete")

sas = generate_blob_sas(blobs.account_name, "pyblobs", "docs/hello.txt", account_key=blobs.credential.account_key,
                        permission=BlobSasPermissions(read=True), expiry=datetime.now(timezone.utc) + timedelta(hours=1))
reader = BlobClient.from_blob_url(blob.url + "?" + sas)
expect(reader.download_blob().readall() == data, "read through the SAS")
refused(lambda: reader.upload_blob(b"no", overwrite=True), "AuthorizationPermissionMismatch")
ok("blob SAS read, write refused")

names = [b.name for b in container.list_blobs(name_starts_with="docs/")]
expect(names == ["docs/blocks.bin", "docs/copy.txt", "docs/hello.txt"], "list_blobs %r" % names)
top = [b.name for b in container.walk_blobs(delimiter="/")]
expect(top == ["disks/", "docs/", "logs/", "trash/"], "walk_blobs %r" % top)
inner = [b.name for b in container.walk_blobs(name_starts_with="docs/", delimiter="/")]
expect(inner == names, "walk_blobs under docs/ %r" % inner)
ok("list with prefix and walk with delimiter")

chunky = BlobServiceClient.from_connection_string(conn, max_single_put_size=4 * 1024, max_block_size=1024,
                                                  max_single_get_size=1024, max_chunk_get_size=1024)
large = bytes(range(256)) * 40
chunked = chunky.get_blob_client("pyblobs", "docs/chunked.bin")
chunked.upload_blob(large, max_concurrency=3)
committed, _ = chunked.get_block_list("committed")
expect(len(committed) == 10 and all(b.size == 1024 for b in committed), "chunked blocks %r" % [(b.id, b.size) for b in committed])
expect(chunked.download_blob(max_concurrency=3).readall() == large, "chunked download")
expect(chunked.download_blob(offset=1000, length=2500).readall() == large[1000:3500], "ranged chunked download")
expect(blob.download_blob(offset=5, length=20, validate_content=True).readall() == data[5:25], "validated range")
blob.upload_blob(data, overwrite=True, validate_content=True, metadata={"kind": "greeting"})
ok("chunked upload, ranged and validated download")

refused(lambda: blob.upload_blob(b"again"), "BlobAlreadyExists")
stale = blob.get_blob_properties().etag
blob.set_blob_metadata({"kind": "greeting", "touched": "yes"})
refused(lambda: blob.set_blob_metadata({"kind": "late"}, etag=stale, match_condition=MatchConditions.IfNotModified), "ConditionNotMet")
refused(lambda: container.get_blob_client("docs/missing").get_blob_properties(), "BlobNotFound")
refused(lambda: blobs.get_container_client("nosuchcontainer").get_container_properties(), "ContainerNotFound")
expect(blob.exists() and not container.get_blob_client("docs/missing").exists(), "exists")
ok("blob error codes on HEAD and conditional requests")

read_sas = generate_blob_sas(blobs.account_name, "pyblobs", "docs/hello.txt", account_key=blobs.credential.account_key,
                             permission=BlobSasPermissions(read=True), expiry=datetime.now(timezone.utc) + timedelta(hours=1))
from_url = container.get_blob_client("docs/fromurl.txt")
from_url.upload_blob_from_url(blob.url + "?" + read_sas)
expect(from_url.download_blob().readall() == data, "put blob from url")
staged = container.get_blob_client("docs/staged-from-url.bin")
staged.stage_block_from_url("from-url", blob.url + "?" + read_sas, source_offset=0, source_length=18)
staged.commit_block_list([BlobBlock("from-url")])
expect(staged.download_blob().readall() == data[:18], "stage block from url")
ok("put blob and stage block from a URL")

account_sas = generate_account_sas(blobs.account_name, blobs.credential.account_key,
                                   ResourceTypes(service=True, container=True, object=True),
                                   AccountSasPermissions(read=True, list=True),
                                   expiry=datetime.now(timezone.utc) + timedelta(hours=1))
via_sas = BlobServiceClient(blobs.url, credential=account_sas)
expect([c.name for c in via_sas.list_containers()] == ["pyblobs"], "containers through an account SAS")
expect(via_sas.get_blob_client("pyblobs", "docs/hello.txt").download_blob().readall() == data, "blob through an account SAS")
refused(lambda: via_sas.create_container("denied"), "AuthorizationPermissionMismatch")
ok("account SAS")

for name in ("batch/a", "batch/b", "batch/c"):
    container.upload_blob(name, b"batched")
tiers = list(container.set_standard_blob_tier_blobs("Cool", "batch/a", "batch/b"))
expect([r.status_code for r in tiers] == [200, 200], "batch set tier %r" % [r.status_code for r in tiers])
expect(container.get_blob_client("batch/a").get_blob_properties().blob_tier == "Cool", "tier set in a batch")
deleted_batch = list(container.delete_blobs("batch/a", "batch/b", "batch/c"))
expect([r.status_code for r in deleted_batch] == [202, 202, 202], "batch delete %r" % [r.status_code for r in deleted_batch])
expect([b.name for b in container.list_blobs(name_starts_with="batch/")] == [], "blobs left after batch delete")
ok("batch set tier and delete")


page_snap = page.create_snapshot()
page.clear_page(offset=0, length=512)
page.upload_page(b"\x03" * 512, offset=1024, length=512)
diff, diff_cleared = page.get_page_ranges(previous_snapshot_diff=page_snap)
expect(diff == [{"start": 1024, "end": 1535}] and diff_cleared == [{"start": 0, "end": 511}], "page diff %r %r" % (diff, diff_cleared))
page.resize_blob(8192)
page.set_sequence_number("update", 7)
pp = page.get_blob_properties()
expect(pp.size == 8192 and pp.page_blob_sequence_number == 7, "page blob size %r sequence %r" % (pp.size, pp.page_blob_sequence_number))
append.seal_append_blob()
expect(append.get_blob_properties().is_append_blob_sealed is True, "append blob sealed")
refused(lambda: append.append_block(b"late"), "BlobIsSealed")
ok("page diff, resize and sequence number; seal an append blob")

refused(lambda: copy.abort_copy(started["copy_id"]), "NoPendingCopyOperation")
synced = container.get_blob_client("docs/sync-copy.txt")
result_copy = synced.start_copy_from_url(blob.url + "?" + read_sas, requires_sync=True)
expect(result_copy.get("copy_status") == "success", "synchronous copy %r" % result_copy)
expect(synced.download_blob().readall() == data, "synchronous copy content")
synced.delete_blob()
ok("synchronous copy; abort of a finished copy refused")

pages = container.list_blobs(results_per_page=2).by_page()
seen_pages = [[b.name for b in p] for p in pages]
expect(all(len(p) <= 2 for p in seen_pages) and len(seen_pages) >= 3, "pages %r" % seen_pages)
expect(sorted(sum(seen_pages, [])) == sorted(b.name for b in container.list_blobs()), "paged listing %r" % seen_pages)
ok("list blobs in pages")

blob.delete_blob(delete_snapshots="only")
expect([b.snapshot for b in container.list_blobs(name_starts_with="docs/hello", include=["snapshots"])] == [None], "snapshots left")
clease = container.acquire_lease(lease_duration=-1)
refused(lambda: container.delete_container(), "LeaseIdMissing")
clease.release()
ok("delete snapshots only; a leased container is not deleted without its lease")

container.delete_container()
ok("delete container")

# Queue.

queues = QueueServiceClient.from_connection_string(conn)
queues.set_service_properties(
    analytics_logging=QueueAnalyticsLogging(read=True, write=False, delete=True,
                                            retention_policy=QueueRetentionPolicy(enabled=True, days=3)),
    hour_metrics=QueueMetrics(enabled=True, include_apis=False, retention_policy=QueueRetentionPolicy(enabled=True, days=4)),
    minute_metrics=QueueMetrics(enabled=False),
    cors=[QueueCorsRule(["https://a.example", "https://b.example"], ["GET", "POST"], max_age_in_seconds=60)],
)
qprops = queues.get_service_properties()
qlog = qprops["analytics_logging"]
expect(qlog.read and not qlog.write and qlog.delete and qlog.retention_policy.days == 3, "queue logging %r" % qlog)
expect(qprops["hour_metrics"].enabled and not qprops["hour_metrics"].include_apis, "queue hour metrics %r" % qprops["hour_metrics"])
expect(qprops["hour_metrics"].retention_policy.days == 4, "queue hour metrics retention")
expect(not qprops["minute_metrics"].enabled, "queue minute metrics")
qcors = qprops["cors"]
expect(len(qcors) == 1 and qcors[0].allowed_origins == "https://a.example,https://b.example", "queue cors %r" % qcors)
expect(qcors[0].allowed_methods == "GET,POST" and qcors[0].max_age_in_seconds == 60, "queue cors %r" % qcors[0])
ok("queue service properties set and read back")

queue = queues.create_queue("pyqueue", metadata={"origin": "python"})
qlisted = list(queues.list_queues(name_starts_with="pyqueue", include_metadata=True))
expect([q.name for q in qlisted] == ["pyqueue"] and qlisted[0].metadata == {"origin": "python"},
       "list_queues %r" % [(q.name, q.metadata) for q in qlisted])
queue.set_queue_metadata({"origin": "python", "step": "two"})
qp = queue.get_queue_properties()
expect(qp.metadata == {"origin": "python", "step": "two"} and qp.approximate_message_count == 0, "queue properties %r" % qp)
queue.set_queue_access_policy(signed_identifiers={
    "workers": QueueAccessPolicy(permission=QueueSasPermissions(read=True, process=True), start=start, expiry=expiry),
})
qacl = queue.get_queue_access_policy()
expect(list(qacl) == ["workers"] and qacl["workers"].permission == "rp", "queue access policy %r" % qacl)
expect(same_time(qacl["workers"].start, start) and same_time(qacl["workers"].expiry, expiry),
       "queue policy times %r %r" % (qacl["workers"].start, qacl["workers"].expiry))
ok("queue create, list, metadata, properties and access policy")

sent = queue.send_message("first message")
expect(sent.id and sent.pop_receipt and sent.inserted_on and sent.expires_on, "send_message %r" % sent)
queue.send_message("second message")
peeked = queue.peek_messages(max_messages=5)
expect([m.content for m in peeked] == ["first message", "second message"], "peek %r" % [m.content for m in peeked])
expect(all(m.dequeue_count == 0 for m in peeked), "peek dequeue counts %r" % [m.dequeue_count for m in peeked])
got = list(queue.receive_messages(messages_per_page=1, visibility_timeout=60, max_messages=1))
expect(len(got) == 1 and got[0].content == "first message" and got[0].dequeue_count == 1, "receive %r" % got)
expect([m.content for m in queue.peek_messages(max_messages=5)] == ["second message"], "peek while invisible")
updated = queue.update_message(got[0], pop_receipt=got[0].pop_receipt, content="first, updated", visibility_timeout=0)
expect(updated.pop_receipt and updated.pop_receipt != got[0].pop_receipt, "update_message pop receipt %r" % updated)
again = list(queue.receive_messages(max_messages=5, visibility_timeout=60))
expect(sorted(m.content for m in again) == ["first, updated", "second message"], "receive after update %r" % [m.content for m in again])
for m in again:
    queue.delete_message(m.id, m.pop_receipt)
expect(queue.peek_messages(max_messages=5) == [], "messages left after delete")
ok("send, peek, receive, update and delete messages")

queue.send_message("one")
queue.send_message("two")
queue.clear_messages()
expect(queue.peek_messages(max_messages=5) == [], "messages left after clear")
expect(queue.get_queue_properties().approximate_message_count == 0, "count after clear")
ok("clear messages")

queue.send_message("for the sas")
qsas = generate_queue_sas(queues.account_name, "pyqueue", queues.credential.account_key,
                          permission=QueueSasPermissions(read=True, process=True),
                          expiry=datetime.now(timezone.utc) + timedelta(hours=1))
sas_queue = QueueClient.from_queue_url(queue.url, credential=qsas)
expect([m.content for m in sas_queue.peek_messages()] == ["for the sas"], "peek through a queue SAS")
refused(lambda: sas_queue.send_message("denied"), "AuthorizationPermissionMismatch")
policy_sas = generate_queue_sas(queues.account_name, "pyqueue", queues.credential.account_key, policy_id="workers")
taken = list(QueueClient.from_queue_url(queue.url, credential=policy_sas).receive_messages())
expect([m.content for m in taken] == ["for the sas"], "receive through a stored policy SAS %r" % taken)
queue.delete_message(taken[0].id, taken[0].pop_receipt)
ok("queue SAS and stored access policy SAS")

binary = QueueClient.from_connection_string(conn, "pyqueue", message_encode_policy=BinaryBase64EncodePolicy(),
                                            message_decode_policy=BinaryBase64DecodePolicy())
binary.send_message(b"\x00\x01binary\xff", time_to_live=3600)
for i in range(5):
    queue.send_message("batch %d" % i)
pages = [[m.content for m in p] for p in queue.receive_messages(messages_per_page=2, visibility_timeout=60).by_page()]
# The binary message comes first; the text client sees its base64 text.
flat = sum(pages, [])
expect(len(flat) == 6 and flat[1:] == ["batch %d" % i for i in range(5)], "received in pages %r" % pages)
expect(all(len(p) <= 2 for p in pages), "page sizes %r" % pages)
queue.clear_messages()
binary.send_message(b"\x00\x01binary\xff")
expect([m.content for m in binary.receive_messages()] == [b"\x00\x01binary\xff"], "binary message round trip")
refused(lambda: queue.delete_message("00000000-0000-0000-0000-000000000000", "AAAAAAAAAAAAAAAA"), "MessageNotFound")
refused(lambda: queues.get_queue_client("nosuchqueue").get_queue_properties(), "QueueNotFound")
ok("base64 messages, receive in pages and queue error codes")

queue.delete_queue()
ok("delete queue")

# Table.

tables = TableServiceClient.from_connection_string(conn)
tables.set_service_properties(
    analytics_logging=TableAnalyticsLogging(read=True, write=True, delete=True,
                                            retention_policy=TableRetentionPolicy(enabled=True, days=7)),
    hour_metrics=TableMetrics(enabled=True, include_apis=True, retention_policy=TableRetentionPolicy(enabled=True, days=8)),
    minute_metrics=TableMetrics(enabled=False),
    cors=[TableCorsRule(["https://example.com"], ["GET", "MERGE"])],
)
tprops = tables.get_service_properties()
tlog = tprops["analytics_logging"]
expect(tlog.read and tlog.write and tlog.delete and tlog.retention_policy.days == 7, "table logging %r" % tlog)
expect(tprops["hour_metrics"].enabled and tprops["hour_metrics"].include_apis, "table hour metrics %r" % tprops["hour_metrics"])
expect(tprops["hour_metrics"].retention_policy.days == 8, "table hour metrics retention")
expect(not tprops["minute_metrics"].enabled, "table minute metrics")
tcors = tprops["cors"]
expect(len(tcors) == 1 and tcors[0].allowed_origins == ["https://example.com"] and tcors[0].allowed_methods == ["GET", "MERGE"],
       "table cors %r" % [(c.allowed_origins, c.allowed_methods) for c in tcors])
ok("table service properties set and read back")

table = tables.create_table("pytable")
expect(table.table_name == "pytable", "create_table %r" % table.table_name)
tables.create_table("pyother")
expect(sorted(t.name for t in tables.list_tables()) == ["pyother", "pytable"], "list_tables %r" % [t.name for t in tables.list_tables()])
queried = [t.name for t in tables.query_tables("TableName eq @name", parameters={"name": "pytable"})]
expect(queried == ["pytable"], "query_tables %r" % queried)
ok("create, list and query tables")

when = datetime(2023, 5, 17, 8, 30, 15, 123000, tzinfo=timezone.utc)
gid = uuid.UUID("12345678-9abc-def0-1234-56789abcdef0")
big = 2 ** 40 + 7
table.create_entity({
    "PartitionKey": "p1", "RowKey": "r1", "Count": 42, "Big": EntityProperty(big, EdmType.INT64),
    "Ratio": 2.5, "Active": True, "When": when, "Blob": b"\x00\x01\xfe\xff", "Id": gid, "Name": "first",
})
e = table.get_entity("p1", "r1")
expect(e["PartitionKey"] == "p1" and e["RowKey"] == "r1", "keys %r" % e)
expect(type(e["Count"]) is int and e["Count"] == 42, "Count %r" % e["Count"])
expect(isinstance(e["Big"], EntityProperty) and e["Big"].value == big and e["Big"].edm_type == EdmType.INT64, "Big %r" % (e["Big"],))
expect(type(e["Ratio"]) is float and e["Ratio"] == 2.5, "Ratio %r" % e["Ratio"])
expect(e["Active"] is True, "Active %r" % e["Active"])
expect(isinstance(e["When"], datetime) and e["When"] == when, "When %r" % e["When"])
expect(type(e["Blob"]) is bytes and e["Blob"] == b"\x00\x01\xfe\xff", "Blob %r" % e["Blob"])
expect(isinstance(e["Id"], uuid.UUID) and e["Id"] == gid, "Id %r" % e["Id"])
expect(type(e["Name"]) is str and e["Name"] == "first", "Name %r" % e["Name"])
expect(e.metadata.get("etag") and isinstance(e.metadata.get("timestamp"), datetime), "entity metadata %r" % e.metadata)
expect(set(e) == {"PartitionKey", "RowKey", "Count", "Big", "Ratio", "Active", "When", "Blob", "Id", "Name"}, "properties %r" % sorted(e))
ok("create and read an entity with typed values")

table.update_entity({"PartitionKey": "p1", "RowKey": "r1", "Name": "merged", "Extra": 7}, mode=UpdateMode.MERGE)
e = table.get_entity("p1", "r1")
expect(e["Name"] == "merged" and e["Extra"] == 7 and e["Count"] == 42 and e["Id"] == gid, "after merge %r" % e)
table.update_entity({"PartitionKey": "p1", "RowKey": "r1", "Name": "replaced"}, mode=UpdateMode.REPLACE)
e = table.get_entity("p1", "r1")
expect(set(e) == {"PartitionKey", "RowKey", "Name"} and e["Name"] == "replaced", "after replace %r" % e)
ok("update entity merge and replace")

table.upsert_entity({"PartitionKey": "p1", "RowKey": "r2", "Name": "upserted", "Count": 5})
table.upsert_entity({"PartitionKey": "p1", "RowKey": "r2", "Count": 6}, mode=UpdateMode.MERGE)
e = table.get_entity("p1", "r2")
expect(e["Name"] == "upserted" and e["Count"] == 6, "after upsert %r" % e)
table.upsert_entity({"PartitionKey": "p1", "RowKey": "r2", "Count": 7}, mode=UpdateMode.REPLACE)
e = table.get_entity("p1", "r2")
expect(set(e) == {"PartitionKey", "RowKey", "Count"} and e["Count"] == 7, "after upsert replace %r" % e)
ok("upsert entity")

for i in range(3, 8):
    table.create_entity({"PartitionKey": "p2", "RowKey": "r%d" % i, "Count": i, "Name": "n%d" % i})
rows = list(table.query_entities("PartitionKey eq @pk and Count ge @low", parameters={"pk": "p2", "low": 5},
                                 select=["RowKey", "Count"]))
expect([(r["RowKey"], r["Count"]) for r in rows] == [("r5", 5), ("r6", 6), ("r7", 7)], "query %r" % rows)
expect(all(set(r) == {"RowKey", "Count"} for r in rows), "selected properties %r" % [sorted(r) for r in rows])
ok("query entities with a filter, parameters and select")

table.delete_entity("p1", "r2")
try:
    table.get_entity("p1", "r2")
    raise AssertionError("a deleted entity is still found")
except ResourceNotFoundError:
    pass
ok("delete entity")

result = table.submit_transaction([
    ("create", {"PartitionKey": "p2", "RowKey": "r10", "Count": 10}),
    ("upsert", {"PartitionKey": "p2", "RowKey": "r3", "Name": "batched"}, {"mode": "merge"}),
    ("update", {"PartitionKey": "p2", "RowKey": "r4", "Count": 40}, {"mode": "replace"}),
    ("delete", {"PartitionKey": "p2", "RowKey": "r5"}),
])
expect(len(result) == 4 and all("etag" in r for r in result[:3]), "transaction result %r" % result)
p2 = {r["RowKey"]: dict(r) for r in table.query_entities("PartitionKey eq 'p2'")}
expect(sorted(p2) == ["r10", "r3", "r4", "r6", "r7"], "after transaction %r" % sorted(p2))
expect(p2["r3"]["Name"] == "batched" and p2["r3"]["Count"] == 3, "merged in transaction %r" % p2["r3"])
expect(p2["r4"] == {"PartitionKey": "p2", "RowKey": "r4", "Count": 40}, "replaced in transaction %r" % p2["r4"])
ok("transaction in one partition")

table.set_table_access_policy(signed_identifiers={
    "readers": TableAccessPolicy(permission="r", start=start, expiry=expiry),
})
tacl = table.get_table_access_policy()
expect(list(tacl) == ["readers"] and tacl["readers"].permission == "r", "table access policy %r" % tacl)
expect(tacl["readers"].start == start and tacl["readers"].expiry == expiry,
       "table policy times %r %r" % (tacl["readers"].start, tacl["readers"].expiry))
ok("table access policy")


before = {r["RowKey"] for r in table.query_entities("PartitionKey eq 'p2'")}
try:
    table.submit_transaction([
        ("create", {"PartitionKey": "p2", "RowKey": "r20", "Count": 20}),
        ("update", {"PartitionKey": "p2", "RowKey": "missing", "Count": 0}, {"mode": "merge"}),
    ])
    raise AssertionError("a transaction updating a missing entity succeeded")
except TableTransactionError as e:
    expect(e.error_code == "ResourceNotFound" and e.index == 1, "transaction error %r at %r" % (e.error_code, e.index))
expect({r["RowKey"] for r in table.query_entities("PartitionKey eq 'p2'")} == before, "a failed transaction applied")
ok("a failed transaction names its operation and applies nothing")

refused(lambda: table.create_entity({"PartitionKey": "p2", "RowKey": "r3"}), "EntityAlreadyExists")
refused(lambda: tables.create_table("pytable"), "TableAlreadyExists")
current = table.get_entity("p2", "r6")
table.update_entity({"PartitionKey": "p2", "RowKey": "r6", "Count": 60}, mode=UpdateMode.MERGE)
refused(lambda: table.update_entity({"PartitionKey": "p2", "RowKey": "r6", "Count": 61}, mode=UpdateMode.MERGE,
                                    etag=current.metadata["etag"], match_condition=MatchConditions.IfNotModified),
        "UpdateConditionNotSatisfied")
refused(lambda: table.get_entity("p2", "nosuchrow"), "ResourceNotFound")
ok("table error codes")

paged = [[r["RowKey"] for r in p] for p in table.query_entities("PartitionKey eq 'p2'", results_per_page=2).by_page()]
expect(paged == [["r10", "r3"], ["r4", "r6"], ["r7"]], "entities in pages %r" % paged)
listed_pages = [[t.name for t in p] for p in tables.list_tables(results_per_page=1).by_page()]
expect(listed_pages == [["pyother"], ["pytable"]], "tables in pages %r" % listed_pages)
ok("query entities and list tables in pages")

odd = {"PartitionKey": "part 'one'", "RowKey": "row &with+plus=eq%pct", "Text": "caf\u00e9 \u2603 \U0001f600", "Empty": "",
       "NotANumber": float("nan"), "Infinite": float("inf"), "Negative": -(2 ** 31), "Zero": 0.0,
       "Precise": datetime(2023, 5, 17, 8, 30, 15, 123456, tzinfo=timezone.utc)}
table.create_entity(odd)
back = table.get_entity("part 'one'", "row &with+plus=eq%pct")
expect(back["Text"] == odd["Text"] and back["Empty"] == "", "strings %r %r" % (back["Text"], back["Empty"]))
expect(back["NotANumber"] != back["NotANumber"] and back["Infinite"] == float("inf"), "special doubles %r %r" % (back["NotANumber"], back["Infinite"]))
expect(back["Negative"] == -(2 ** 31) and type(back["Zero"]) is float and back["Zero"] == 0.0, "numbers %r %r" % (back["Negative"], back["Zero"]))
expect(back["Precise"] == odd["Precise"], "microseconds %r" % back["Precise"])
found = list(table.query_entities("PartitionKey eq @pk and RowKey eq @rk", parameters={"pk": "part 'one'", "rk": "row &with+plus=eq%pct"}))
expect(len(found) == 1 and found[0]["Text"] == odd["Text"], "query by quoted keys %r" % found)
table.delete_entity("part 'one'", "row &with+plus=eq%pct")
ok("keys with quotes and reserved characters, unicode and special doubles")

tsas = generate_table_sas(tables.credential, "pytable",
                          permission=TableSasPermissions(read=True), expiry=datetime.now(timezone.utc) + timedelta(hours=1))
sas_table = TableClient(tables.url, "pytable", credential=AzureSasCredential(tsas))
expect(sas_table.get_entity("p2", "r3")["Name"] == "batched", "read through a table SAS")
refused(lambda: sas_table.create_entity({"PartitionKey": "p9", "RowKey": "r9"}), "AuthorizationPermissionMismatch")
ok("table SAS")

tables.delete_table("pytable")
tables.delete_table("pyother")
expect([t.name for t in tables.list_tables()] == [], "tables left")
ok("delete tables")

# Files.

files = ShareServiceClient.from_connection_string(conn)
files.set_service_properties(
    hour_metrics=FileMetrics(enabled=True, include_apis=True, retention_policy=FileRetentionPolicy(enabled=True, days=9)),
    minute_metrics=FileMetrics(enabled=False),
    cors=[FileCorsRule(["https://example.com"], ["GET", "HEAD"], max_age_in_seconds=30)],
    protocol=ShareProtocolSettings(smb=ShareSmbSettings(multichannel=SmbMultichannel(enabled=False))),
)
fprops = files.get_service_properties()
expect(fprops["hour_metrics"].enabled and fprops["hour_metrics"].retention_policy.days == 9, "file hour metrics %r" % fprops["hour_metrics"])
expect(not fprops["minute_metrics"].enabled, "file minute metrics")
fcors = fprops["cors"]
expect(len(fcors) == 1 and fcors[0].allowed_origins == "https://example.com" and fcors[0].allowed_methods == "GET,HEAD",
       "file cors %r" % fcors)
protocol = fprops["protocol"]
expect(protocol is not None and protocol.smb is not None and protocol.smb.multichannel is not None,
       "protocol settings %r" % protocol)
expect(protocol.smb.multichannel.enabled is False, "multichannel %r" % protocol.smb.multichannel.enabled)
ok("file service properties set and read back, with protocol settings")

share = files.create_share("pyshare", metadata={"origin": "python"}, quota=5)
shares = list(files.list_shares(name_starts_with="pyshare", include_metadata=True))
expect([s.name for s in shares] == ["pyshare"] and shares[0].metadata == {"origin": "python"} and shares[0].quota == 5,
       "list_shares %r" % [(s.name, s.metadata, s.quota) for s in shares])
share.set_share_quota(10)
share.set_share_metadata({"origin": "python", "step": "two"})
sp = share.get_share_properties()
expect(sp.quota == 10 and sp.metadata == {"origin": "python", "step": "two"}, "share properties %r" % sp)
expect(sp.etag and sp.last_modified, "share etag and last modified")
ok("share create, list, properties, quota and metadata")

directory = share.create_directory("dir1", metadata={"level": "one"})
directory.create_subdirectory("sub")
dp = directory.get_directory_properties()
expect(dp.metadata == {"level": "one"} and dp.etag and dp.last_modified, "directory properties %r" % dp)
root = [(i["name"], i["is_directory"]) for i in share.list_directories_and_files()]
expect(root == [("dir1", True)], "root listing %r" % root)
ok("directory create, list and properties")

body = b"file content from python " * 40
fclient = directory.get_file_client("data.txt")
fclient.upload_file(body, metadata={"kind": "data"}, content_settings=FileContentSettings(
    content_type="text/plain", content_language="en", cache_control="max-age=60"))
fdown = fclient.download_file()
expect(fdown.readall() == body, "file content differs")
expect(fdown.properties.metadata == {"kind": "data"}, "downloaded file metadata %r" % fdown.properties.metadata)
fcs = fdown.properties.content_settings
expect(fcs.content_type == "text/plain" and fcs.content_language == "en" and fcs.cache_control == "max-age=60",
       "downloaded file content settings %r" % fcs)
listing = sorted((i["name"], i["is_directory"]) for i in directory.list_directories_and_files())
expect(listing == [("data.txt", False), ("sub", True)], "directory listing %r" % listing)
ok("file upload and download with content settings and metadata")

ranged = directory.get_file_client("ranges.bin")
ranged.create_file(size=4096)
ranged.upload_range(b"\x07" * 1024, offset=0, length=1024)
ranged.upload_range(b"\x08" * 512, offset=2048, length=512)
expect(ranged.get_ranges() == [{"start": 0, "end": 1023}, {"start": 2048, "end": 2559}], "ranges %r" % ranged.get_ranges())
ranged.clear_range(offset=0, length=512)
expect(ranged.get_ranges() == [{"start": 512, "end": 1023}, {"start": 2048, "end": 2559}],
       "ranges after clear %r" % ranged.get_ranges())
rcontent = ranged.download_file().readall()
expect(rcontent[:512] == b"\x00" * 512 and rcontent[512:1024] == b"\x07" * 512, "content after clear")
ranged.resize_file(8192)
expect(ranged.get_file_properties().size == 8192, "size after resize")
ok("upload range, get ranges, clear range and resize")

ranged.set_file_metadata({"state": "resized"})
ranged.set_http_headers(content_settings=FileContentSettings(content_type="application/octet-stream", content_disposition="attachment"))
rp = ranged.get_file_properties()
expect(rp.metadata == {"state": "resized"}, "file metadata %r" % rp.metadata)
expect(rp.content_settings.content_type == "application/octet-stream" and rp.content_settings.content_disposition == "attachment",
       "file content settings %r" % rp.content_settings)
expect(rp.name == "ranges.bin" and rp.path == "dir1/ranges.bin" and rp.share == "pyshare", "file names %r %r %r" % (rp.name, rp.path, rp.share))
expect(rp.etag and rp.last_modified and rp.file_id, "file etag, last modified, id")
ok("file metadata and properties")

fcopy = share.get_file_client("copy.txt")
fstarted = fcopy.start_copy_from_url(fclient.url)
expect(fstarted.get("copy_id") and fstarted.get("copy_status") in ("success", "pending"), "start file copy %r" % fstarted)
wait_copy(fcopy.get_file_properties, "file")
expect(fcopy.download_file().readall() == body, "copied file content")
ok("copy a file within the account")

expect(list(fclient.list_handles()) == [], "file handles")
expect(list(directory.list_handles(recursive=True)) == [], "directory handles")
ok("list handles")

flease = fclient.acquire_lease()
expect(fclient.get_file_properties().lease.state == "leased", "file lease state")
refused(lambda: fclient.set_file_metadata({"kind": "nolease"}), "LeaseIdMissing")
fclient.set_file_metadata({"kind": "leased"}, lease=flease)
flease.release()
expect(fclient.get_file_properties().lease.state == "available", "file lease state after release")
ok("file lease acquire and release; a write refused without it")

ssnap = share.create_snapshot()
expect(ssnap.get("snapshot"), "share snapshot %r" % ssnap)
snapped = files.get_share_client("pyshare", snapshot=ssnap["snapshot"]).get_directory_client("dir1").get_file_client("data.txt")
expect(snapped.download_file().readall() == body, "file in the share snapshot")
withsnaps = [(s.name, s.snapshot) for s in files.list_shares(name_starts_with="pyshare", include_snapshots=True)]
expect(sorted(withsnaps, key=lambda s: s[1] or "") == [("pyshare", None), ("pyshare", ssnap["snapshot"])],
       "shares with snapshots %r" % withsnaps)
ok("share snapshot")

fp = fclient.get_file_properties()
expect(fp.creation_time and fp.last_write_time and fp.change_time and fp.permission_key, "SMB times and permission key %r" % fp)
expect(fp.file_id and fp.parent_id, "file and parent ids %r %r" % (fp.file_id, fp.parent_id))
expect("Archive" in fp.file_attributes or fp.file_attributes in ("None", "Normal"), "attributes %r" % fp.file_attributes)
# 12.11.0b1 formats SMB times as isoformat() + "0Z": only a naive UTC
# time with microseconds comes out as the seven-digit form Azure reads.
written = datetime(2022, 3, 4, 5, 6, 7, 890123)
fclient.set_http_headers(content_settings=fcs, file_attributes=NTFSAttributes(read_only=True, archive=True),
                         file_creation_time=written, file_last_write_time=written)
fp = fclient.get_file_properties()
expect(sorted(a.strip() for a in fp.file_attributes.split("|")) == ["Archive", "ReadOnly"], "attributes after set %r" % fp.file_attributes)
expect(fp.creation_time.replace(tzinfo=None) == written and fp.last_write_time.replace(tzinfo=None) == written,
       "SMB times after set %r %r" % (fp.creation_time, fp.last_write_time))
fclient.set_http_headers(content_settings=fcs, file_attributes=NTFSAttributes(archive=True))
sddl = share.get_permission_for_share(fp.permission_key)
expect(sddl.startswith("O:"), "permission %r" % sddl)
key = share.create_permission_for_share(sddl)
expect(key and share.get_permission_for_share(key).startswith("O:"), "created permission key %r" % key)
ok("file SMB properties and permissions")

big_file = ShareFileClient.from_connection_string(conn, "pyshare", "dir1/chunked.bin", max_range_size=1024,
                                                  max_single_get_size=1024, max_chunk_get_size=1024)
big_file.upload_file(large, max_concurrency=3)
expect(big_file.get_ranges() == [{"start": 0, "end": len(large) - 1}], "chunked file ranges %r" % big_file.get_ranges())
expect(big_file.download_file(max_concurrency=3).readall() == large, "chunked file download")
expect(big_file.download_file(offset=1000, length=2500).readall() == large[1000:3500], "ranged file download")
expect(fclient.download_file(offset=3, length=40, validate_content=True).readall() == body[3:43], "validated file range")
ok("chunked file upload, ranged and validated download")

fsas = generate_file_sas(files.account_name, "pyshare", ["dir1", "chunked.bin"], files.credential.account_key,
                         permission=FileSasPermissions(read=True), expiry=datetime.now(timezone.utc) + timedelta(hours=1))
# 12.11.0b1's from_file_url drops the URL's scheme (it assumes https) and
# takes the first path segment for the share, so the client is built from
# the account URL and the share and file names.
sas_file = ShareFileClient(files.url, "pyshare", "dir1/chunked.bin", credential=fsas)
expect(sas_file.download_file().readall() == large, "file read through a SAS")
refused(lambda: sas_file.upload_range(b"x" * 512, offset=0, length=512), "AuthorizationPermissionMismatch")
target = directory.get_file_client("from-url.bin")
target.create_file(size=2048)
target.upload_range_from_url(big_file.url + "?" + fsas, offset=0, length=1024, source_offset=1024)
expect(target.download_file(offset=0, length=1024).readall() == large[1024:2048], "upload range from url")
ok("file SAS and upload range from a URL")

before_snap = share.create_snapshot()
target.upload_range(b"\x09" * 512, offset=1024, length=512)
target.clear_range(offset=0, length=512)
changed, cleared = target.get_ranges_diff(previous_sharesnapshot=before_snap["snapshot"])
expect(changed == [{"start": 1024, "end": 1535}] and cleared == [{"start": 0, "end": 511}], "ranges diff %r %r" % (changed, cleared))
ok("file ranges diff against a share snapshot")

renamed = target.rename_file("dir1/renamed.bin")
expect(renamed.download_file(offset=1024, length=512).readall() == b"\x09" * 512, "renamed file content")
refused(target.get_file_properties, "ResourceNotFound")
moved = directory.get_subdirectory_client("sub").rename_directory("moved")
expect(moved.directory_path == "moved" and moved.exists(), "renamed directory")
names = sorted(i["name"] for i in directory.list_directories_and_files())
expect("renamed.bin" in names and "from-url.bin" not in names and "sub" not in names, "after renames %r" % names)
root = sorted(i["name"] for i in share.list_directories_and_files())
expect(root == ["copy.txt", "dir1", "moved"], "root after renames %r" % root)
ok("rename file and directory")

listed = list(directory.list_directories_and_files(name_starts_with="data", include=["timestamps", "Etag", "Attributes", "PermissionKey"],
                                                   include_extended_info=True))
expect([i["name"] for i in listed] == ["data.txt"], "prefix listing %r" % [i["name"] for i in listed])
item = listed[0]
expect(item["file_id"] and item.get("last_modified") and item.get("etag") and item.get("permission_key"), "extended info %r" % item)
expect(item["size"] == len(body), "listed size %r" % item["size"])
ok("list with a prefix and extended info")

share.set_share_access_policy(signed_identifiers={
    "readers": FileAccessPolicy(permission=ShareSasPermissions(read=True, list=True), start=start, expiry=expiry),
})
sacl = share.get_share_access_policy()
sids = sacl["signed_identifiers"]
expect(len(sids) == 1 and sids[0].id == "readers" and sids[0].access_policy.permission == "rl", "share access policy %r" % sids)
expect(same_time(sids[0].access_policy.start, start) and same_time(sids[0].access_policy.expiry, expiry), "share policy times")
expect(isinstance(share.get_share_stats(), int), "share stats")
share.set_share_properties(access_tier="Hot")
expect(share.get_share_properties().access_tier == "Hot", "share access tier %r" % share.get_share_properties().access_tier)
ok("share access policy, stats and access tier")

refused(lambda: share.get_file_client("dir1/missing.txt").get_file_properties(), "ResourceNotFound")
refused(lambda: share.get_file_client("nodir/missing.txt").upload_file(b"x"), "ParentNotFound")
refused(lambda: files.get_share_client("nosuchshare").get_share_properties(), "ShareNotFound")
refused(lambda: directory.delete_directory(), "DirectoryNotEmpty")
refused(lambda: share.delete_share(), "ShareHasSnapshots")
ok("file error codes")


closed = fclient.close_all_handles()
expect(closed == {"closed_handles_count": 0, "failed_handles_count": 0}, "close_all_handles %r" % closed)
directory.set_directory_metadata({"level": "one", "more": "yes"})
expect(directory.get_directory_properties().metadata == {"level": "one", "more": "yes"}, "directory metadata")
slease = share.acquire_lease(lease_duration=-1)
expect(share.get_share_properties().lease.state == "leased", "share lease state")
refused(lambda: share.delete_share(delete_snapshots=True), "LeaseIdMissing")
slease.release()
refused(lambda: fcopy.abort_copy(fstarted["copy_id"]), "NoPendingCopyOperation")
ok("close handles, directory metadata, share lease and abort of a finished copy")

fclient.delete_file()
ranged.delete_file()
big_file.delete_file()
renamed.delete_file()
fcopy.delete_file()
moved.delete_directory()
directory.delete_directory()
try:
    directory.get_directory_properties()
    raise AssertionError("a deleted directory is still found")
except ResourceNotFoundError:
    pass
share.delete_share(delete_snapshots=True)
expect([s.name for s in files.list_shares(name_starts_with="pyshare", include_snapshots=True)] == [], "shares left")
ok("delete file, directory and share with its snapshots")
print("PASS")
