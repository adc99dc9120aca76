package blob

import "context"

// ref names the blob a request addresses.
func (q *request) ref() Ref {
	return Ref{Account: q.acct, Container: q.container, Name: q.blob}
}

// snapshotRef is ref at the request's ?snapshot= or ?versionid=, for the
// operations that read one.
func (q *request) snapshotRef() Ref {
	r := q.ref()
	r.Snapshot = q.snapshot
	return r
}

// containerRef names the container a request addresses.
func (q *request) containerRef() ContainerRef {
	return ContainerRef{Account: q.acct, Container: q.container}
}

// containersOf looks containers up by name, as a service SAS's container.
func containersOf(svc *Service) func(ctx context.Context, acct, name string) (*Container, error) {
	return func(ctx context.Context, acct, name string) (*Container, error) {
		return svc.GetContainer(ctx, ContainerRef{Account: acct, Container: name})
	}
}
