package server

import "crypto/x509"

// HTTPSCertificate is the self-signed certificate the Cosmos gateway (and
// Search with SearchHTTPS, and the Storage services with StorageHTTPS)
// present, for clients to trust; nil when no service is served over
// HTTPS with it.
func (s *Server) HTTPSCertificate() *x509.Certificate {
	if s.cert == nil {
		return nil
	}
	if s.cert.Leaf != nil {
		return s.cert.Leaf
	}
	leaf, err := x509.ParseCertificate(s.cert.Certificate[0])
	if err != nil {
		// The certificate was parsed when its key pair was loaded; it
		// cannot fail now.
		return nil
	}
	return leaf
}
