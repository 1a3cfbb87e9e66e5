//go:build slim

package embedded

import "errors"

// Available reports whether this binary includes the embedded server.
const Available = false

// Banner is unused in slim builds.
const Banner = ""

// Version is unused in slim builds.
const Version = ""

// Server is not available in slim builds.
type Server struct{}

// Start fails: slim builds leave go-mysql-server out.
func Start(databases ...string) (*Server, error) {
	return nil, errors.New("this starbench was built without the embedded server (-tags slim); give --target DSN or --target sandbox:mariadb")
}

// Addr is empty in slim builds.
func (s *Server) Addr() string { return "" }

// Close does nothing in slim builds.
func (s *Server) Close() error { return nil }
