package queue

import (
	"net/http"

	"github.com/cerulean-db/cerulean/internal/storagefront"
)

// route is one row of the routing table.
type route = storagefront.Route[*handler, *request]

const httpGet, httpPut, httpDelete, httpPost, getOrHead = http.MethodGet, http.MethodPut, http.MethodDelete, http.MethodPost, storagefront.Read

// routes is the Queue service's routing table: Azure's operations, the
// requests that select each and what each needs of a caller. SAS letters
// follow "Create an account SAS" and "Create a service SAS": r read/peek,
// a add, u update, p process (get and delete messages), w write, d
// delete, l list.
var routes = []route{
	{Name: "ListQueues", On: atService, Method: httpGet, Comp: "list", Authorize: permit{need: need('s', 'l')}.authorize, Run: (*handler).listQueues},
	{Name: "GetQueueServiceProperties", On: atService, Method: httpGet, Restype: "service", Comp: "properties", Authorize: permit{need: need('s', 'r')}.authorize, Run: (*handler).getServiceProperties},
	{Name: "SetQueueServiceProperties", On: atService, Method: httpPut, Restype: "service", Comp: "properties", Authorize: permit{need: need('s', 'w')}.authorize, Run: (*handler).setServiceProperties},
	{Name: "GetQueueServiceStats", On: atService, Method: httpGet, Restype: "service", Comp: "stats", Authorize: permit{need: need('s', 'r')}.authorize, Run: (*handler).getServiceStats},

	{Name: "CreateQueue", On: atQueue, Method: httpPut, Authorize: permit{need: need('c', 'w'), alt: 'c'}.authorize, Run: (*handler).createQueue},
	{Name: "DeleteQueue", On: atQueue, Method: httpDelete, Authorize: permit{need: need('c', 'd')}.authorize, Run: (*handler).deleteQueue},
	{Name: "GetQueueMetadata", On: atQueue, Method: getOrHead, Comp: "metadata", Authorize: permit{need: need('c', 'r'), queueSAS: true}.authorize, Run: (*handler).getQueueMetadata},
	{Name: "SetQueueMetadata", On: atQueue, Method: httpPut, Comp: "metadata", Authorize: permit{need: need('c', 'w')}.authorize, Run: (*handler).setQueueMetadata},
	{Name: "GetQueueACL", On: atQueue, Method: getOrHead, Comp: "acl", Authorize: permit{need: need('c', 'r'), ownerOnly: true}.authorize, Run: (*handler).getQueueACL},
	{Name: "SetQueueACL", On: atQueue, Method: httpPut, Comp: "acl", Authorize: permit{need: need('c', 'w'), ownerOnly: true}.authorize, Run: (*handler).setQueueACL},

	{Name: "PutMessage", On: atMessages, Method: httpPost, Comp: storagefront.AnyComp, Authorize: permit{need: need('o', 'a'), queueSAS: true}.authorize, Run: (*handler).putMessage},
	{Name: "PeekMessages", On: atMessages, Method: httpGet, Comp: storagefront.AnyComp, Params: []string{"peekonly=true"}, Authorize: permit{need: need('o', 'r'), queueSAS: true}.authorize, Run: (*handler).peekMessages},
	{Name: "GetMessages", On: atMessages, Method: httpGet, Comp: storagefront.AnyComp, Changes: true, Authorize: permit{need: need('o', 'p'), queueSAS: true}.authorize, Run: (*handler).getMessages},
	{Name: "ClearMessages", On: atMessages, Method: httpDelete, Comp: storagefront.AnyComp, Authorize: permit{need: need('c', 'd')}.authorize, Run: (*handler).clearMessages},
	{Name: "DeleteMessage", On: atMessage, Method: httpDelete, Comp: storagefront.AnyComp, Authorize: permit{need: need('o', 'p'), queueSAS: true}.authorize, Run: (*handler).deleteMessage},
	{Name: "UpdateMessage", On: atMessage, Method: httpPut, Comp: storagefront.AnyComp, Authorize: permit{need: need('o', 'u'), queueSAS: true}.authorize, Run: (*handler).updateMessage},
}

// Operations lists the operations the Queue service routes, by Azure's
// names, in the routing table's order.
func Operations() []string { return storagefront.Names(routes) }
