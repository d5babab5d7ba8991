package netx

// dialResult pairs a connection with its error.
type dialResult struct {
	Conn
	err error
}

// dialSerial dials each address in turn.
func dialSerial(addrs []string) dialResult {
	for _, a := range addrs {
		if c, err := lookupHost(a); err == nil {
			return dialResult{Conn: c}
		}
	}
	return dialResult{}
}
