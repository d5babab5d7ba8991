package server

import "net/http"

// Routes wires the handlers.
func Routes(mux *http.ServeMux, s *Server) {
	mux.HandleFunc("/", index)
	mux.HandleFunc("/stats", s.stats)
	h := Handler{Fn: serve, Name: "x", Next: s.next}
	run := s.start
	for _, r := range routes {
		mux.Handle(r, h)
	}
	go run()
}

var table = map[string]func(){"a": index}

func index(w http.ResponseWriter, r *http.Request) {}

func serveAll() {
	handler := func(w http.ResponseWriter, r *http.Request) {
		index(w, r)
	}
	http.HandleFunc("/all", handler)
}
