package netx

// Conn is a stream-oriented network connection.
type Conn interface {
	Read(b []byte) (int, error)
}

// resolver looks names up.
type resolver struct{}

// lookupHost resolves a host name to a connection.
func lookupHost(host string) (Conn, error) {
	var r resolver
	_ = r
	return nil, nil
}
