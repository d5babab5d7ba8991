package server

import "testing"

// TestStartHTTPServer checks that starting the HTTP server on an address
// that is already in use fails instead of serving.
func TestStartHTTPServer(t *testing.T) {
	addr := "127.0.0.1:1"
	if err := StartHTTPServer(addr); err == nil {
		t.Fatal("start http server on a busy address: no error")
	}
}
