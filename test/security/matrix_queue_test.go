package security

import (
	"net/http"
	"regexp"
	"testing"
)

// accountLetters are the account SAS permissions, the same for every
// service.
const accountLetters = "rwdxylacuptfi"

var queueService = storageService{
	name: "queue", ss: "q",
	accountLetters:   accountLetters,
	containerLetters: "raup",
	createContainer: func(t testing.TB, f *fixture, name string) {
		f.prepare(t, "queue", call{method: http.MethodPut, path: name})
	},
	serviceSAS: func(f *fixture, n *target, _ bool, sp string) sasValues {
		return sasValues{service: "queue", resource: "/" + f.env.Account + "/" + n.container, permissions: sp}
	},
}

var messageBody = []byte(`<QueueMessage><MessageText>matrix</MessageText></QueueMessage>`)

func prepQueue(t testing.TB, f *fixture, n *target) { queueService.createContainer(t, f, n.container) }

func prepMessage(t testing.TB, f *fixture, n *target) {
	f.prepare(t, "queue", call{method: http.MethodPost, path: n.container + "/messages", body: messageBody})
}

var (
	messageIDPattern  = regexp.MustCompile(`<MessageId>([^<]+)</MessageId>`)
	popReceiptPattern = regexp.MustCompile(`<PopReceipt>([^<]+)</PopReceipt>`)
)

// prepReceivedMessage puts a message and receives it with the account key,
// noting its id and pop receipt for the call.
func prepReceivedMessage(t testing.TB, f *fixture, n *target) {
	prepMessage(t, f, n)
	resp := f.withKey(t, "queue", call{method: http.MethodGet, path: n.container + "/messages"}, sharedKey)
	must2xx(t, resp, "get messages")
	id, pop := messageIDPattern.FindSubmatch(resp.Body), popReceiptPattern.FindSubmatch(resp.Body)
	if id == nil || pop == nil {
		t.Fatalf("get messages: no message in %s", resp.Body)
	}
	n.object, n.note = string(id[1]), string(pop[1])
}

func queueCall(method, comp string) func(n *target) call {
	return func(n *target) call {
		c := call{method: method, path: n.container}
		if comp != "" {
			c.query = q("comp", comp)
		}
		return c
	}
}

// queueOps is the Queue service's table. A queue (service) SAS reaches the
// messages and the queue's metadata only; the ACL is the owner's alone.
var queueOps = []storageOp{
	{name: "List Queues", level: 's', account: "l", prep: prepNothing,
		call: func(*target) call { return call{method: http.MethodGet, query: q("comp", "list")} }},
	{name: "Get Queue Service Properties", level: 's', account: "r", prep: prepNothing,
		call: func(*target) call {
			return call{method: http.MethodGet, query: q("restype", "service", "comp", "properties")}
		}},
	{name: "Set Queue Service Properties", level: 's', account: "w", prep: prepNothing,
		call: func(*target) call {
			return call{method: http.MethodPut, query: q("restype", "service", "comp", "properties"),
				body: []byte(`<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties><Cors/></StorageServiceProperties>`)}
		}},

	{name: "Create Queue", level: 'c', account: "c|w", service: "-", prep: prepNothing, call: queueCall(http.MethodPut, "")},
	{name: "Delete Queue", level: 'c', account: "d", service: "-", prep: prepQueue, call: queueCall(http.MethodDelete, "")},
	{name: "Get Queue Metadata", level: 'c', account: "r", service: "r", prep: prepQueue, call: queueCall(http.MethodGet, "metadata")},
	{name: "Set Queue Metadata", level: 'c', account: "w", service: "-", prep: prepQueue,
		call: func(n *target) call {
			c := queueCall(http.MethodPut, "metadata")(n)
			c.header = map[string]string{"x-ms-meta-k": "v"}
			return c
		}},
	{name: "Get Queue ACL", level: 'c', account: "-", service: "-", prep: prepQueue, call: queueCall(http.MethodGet, "acl")},
	{name: "Set Queue ACL", level: 'c', account: "-", service: "-", prep: prepQueue, call: queueCall(http.MethodPut, "acl")},
	{name: "Clear Messages", level: 'c', account: "d", service: "-", prep: func(t testing.TB, f *fixture, n *target) {
		prepQueue(t, f, n)
		prepMessage(t, f, n)
	}, call: func(n *target) call { return call{method: http.MethodDelete, path: n.container + "/messages"} }},

	{name: "Put Message", level: 'o', account: "a", service: "a", prep: prepNothing,
		call: func(n *target) call {
			return call{method: http.MethodPost, path: n.container + "/messages", body: messageBody}
		}},
	{name: "Peek Messages", level: 'o', account: "r", service: "r", prep: prepMessage,
		call: func(n *target) call {
			return call{method: http.MethodGet, path: n.container + "/messages", query: q("peekonly", "true")}
		}},
	{name: "Get Messages", level: 'o', account: "p", service: "p", prep: prepMessage,
		call: func(n *target) call { return call{method: http.MethodGet, path: n.container + "/messages"} }},
	{name: "Delete Message", level: 'o', account: "p", service: "p", prep: prepReceivedMessage,
		call: func(n *target) call {
			return call{method: http.MethodDelete, path: n.container + "/messages/" + n.object, query: q("popreceipt", n.note)}
		}},
	{name: "Update Message", level: 'o', account: "u", service: "u", prep: prepReceivedMessage,
		call: func(n *target) call {
			return call{method: http.MethodPut, path: n.container + "/messages/" + n.object,
				query: q("popreceipt", n.note, "visibilitytimeout", "0"), body: messageBody}
		}},
}

func TestQueuePermissionMatrix(t *testing.T) {
	t.Parallel()
	runMatrix(t, queueService, queueOps)
}
