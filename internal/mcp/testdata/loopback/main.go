// Command loopback serves one page on a loopback address for CI's runs of
// the MCP Inspector and the MCP conformance suite against heed mcp. It
// prints its base URL, and serves until it is killed.
package main

import (
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
)

const page = `<!doctype html><html lang="en"><head><title>Loopback harbour</title></head>
<body><nav><a href="/">Home</a></nav><main><h1>Loopback harbour</h1>
<p>The harbour master keeps the tide tables on the wall by the door, where every skipper reads them.</p>
</main></body></html>`

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stdout, "http://%s\n", ln.Addr())
	os.Stdout.Sync()
	log.Fatal(http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	})))
}
