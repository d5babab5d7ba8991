// Package server runs the HTTP front end.
package server

import (
	"log"
	"net/http"
)

// StartHTTPServer listens on addr and serves requests until it fails.
func StartHTTPServer(addr string) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/health", healthHandler)
	log.Printf("listening on %s", addr)
	return http.ListenAndServe(addr, mux)
}

// healthHandler answers liveness probes.
func healthHandler(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusOK)
}

// describeHealth returns the name of a health state for the log.
func describeHealth(h Health) string {
	if h == 1 {
		return "serving"
	}
	return "unknown"
}
