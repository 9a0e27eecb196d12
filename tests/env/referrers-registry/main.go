// A registry with the OCI 1.1 referrers API for toolkit's tests: go-containerregistry's
// pkg/registry (manifests and blobs in memory) with referrers switched on, which
// `crane registry serve` does not do. tests/env/provision.sh builds it; tests/env/registry.ts
// starts it on a free 127.0.0.1 port.
package main

import (
	"flag"
	"log"
	"net/http"
	"os"

	"github.com/google/go-containerregistry/pkg/registry"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:5000", "address to listen on")
	cert := flag.String("tls-cert", "", "serve HTTPS with this certificate (PEM)")
	key := flag.String("tls-key", "", "the certificate's private key (PEM)")
	flag.Parse()
	handler := registry.New(
		registry.WithReferrersSupport(true),
		registry.Logger(log.New(os.Stderr, "", log.LstdFlags)),
	)
	if *cert != "" {
		log.Fatal(http.ListenAndServeTLS(*addr, *cert, *key, handler))
	}
	log.Fatal(http.ListenAndServe(*addr, handler))
}
