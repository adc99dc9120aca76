package file

// ref names the file or directory a request addresses in the live share.
func (q *request) ref() Ref { return Ref{Account: q.acct, Share: q.share, Path: q.path} }

// readRef is ref in the share a read addresses: the live share or the
// snapshot ?sharesnapshot= names (ns).
func (q *request) readRef() Ref { return Ref{Account: q.acct, Share: q.ns(), Path: q.path} }

// shareRef names the live share a request addresses.
func (q *request) shareRef() ShareRef { return ShareRef{Account: q.acct, Share: q.share} }

// readShareRef is shareRef for a read: the live share or its snapshot.
func (q *request) readShareRef() ShareRef { return ShareRef{Account: q.acct, Share: q.ns()} }
