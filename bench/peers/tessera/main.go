// Command tessera-peer is the Tessera peer of `npm run bench -- peers`: the transparency-dev Tessera library with
// its POSIX storage, behind the smallest HTTP front that the bench's load generator can drive the way it drives
// our vct-log. Tessera itself serves tiles and leaves proofs to its clients; this front builds them server-side
// with Tessera's own client.ProofBuilder, so both logs answer a proof request with a proof.
//
//	tessera-peer --listen 127.0.0.1:PORT --storage-dir DIR [--batch-max-age 4ms] [--batch-max-size 256]
//
//	POST /add          the body is one entry; answered with its index once Tessera has stored it durably
//	GET  /size         the size of the latest published checkpoint
//	GET  /proof/{i}    {"leaf_index":i,"tree_size":n,"audit_path":[base64...]} against the latest checkpoint
//	GET  /cpu          CPU microseconds used by this process so far (user + system)
package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/client"
	"github.com/transparency-dev/tessera/storage/posix"
	"golang.org/x/mod/sumdb/note"
)

var (
	listen       = flag.String("listen", "127.0.0.1:0", "address:port to listen on (loopback)")
	storageDir   = flag.String("storage-dir", "", "directory of the POSIX log")
	batchMaxAge  = flag.Duration("batch-max-age", 4*time.Millisecond, "longest an entry waits for its batch to be sequenced")
	batchMaxSize = flag.Uint("batch-max-size", 256, "entries in a batch at most")
	cpInterval   = flag.Duration("checkpoint-interval", time.Second, "how often a checkpoint is published")
)

// proofs keeps one ProofBuilder per published checkpoint: it caches the tiles' nodes, and it is not safe for
// concurrent use, so requests take turns on it.
type proofs struct {
	reader tessera.LogReader
	mu     sync.Mutex
	size   uint64
	pb     *client.ProofBuilder
}

func checkpointSize(raw []byte) (uint64, error) {
	lines := strings.SplitN(string(raw), "\n", 3)
	if len(lines) < 3 {
		return 0, fmt.Errorf("malformed checkpoint")
	}
	return strconv.ParseUint(lines[1], 10, 64)
}

func (p *proofs) latestSize(ctx context.Context) (uint64, error) {
	raw, err := p.reader.ReadCheckpoint(ctx)
	if err != nil {
		return 0, err
	}
	return checkpointSize(raw)
}

func (p *proofs) inclusion(ctx context.Context, index uint64) (uint64, [][]byte, error) {
	size, err := p.latestSize(ctx)
	if err != nil {
		return 0, nil, err
	}
	if index >= size {
		return size, nil, fmt.Errorf("index %d is not in the tree of size %d", index, size)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pb == nil || p.size != size {
		pb, err := client.NewProofBuilder(ctx, size, p.reader.ReadTile)
		if err != nil {
			return size, nil, err
		}
		p.pb, p.size = pb, size
	}
	path, err := p.pb.InclusionProof(ctx, index)
	return size, path, err
}

func cpuMicros() int64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return -1
	}
	return usage.Utime.Sec*1e6 + usage.Utime.Usec + usage.Stime.Sec*1e6 + usage.Stime.Usec
}

func main() {
	flag.Parse()
	if *storageDir == "" {
		log.Fatal("--storage-dir is required")
	}
	ctx := context.Background()
	skey, _, err := note.GenerateKey(rand.Reader, "bench.tessera.peer")
	if err != nil {
		log.Fatal(err)
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		log.Fatal(err)
	}
	driver, err := posix.New(ctx, posix.Config{Path: *storageDir})
	if err != nil {
		log.Fatalf("POSIX storage: %v", err)
	}
	appender, shutdown, reader, err := tessera.NewAppender(ctx, driver, tessera.NewAppendOptions().
		WithCheckpointSigner(signer).
		WithCheckpointInterval(*cpInterval).
		WithBatching(*batchMaxSize, *batchMaxAge))
	if err != nil {
		log.Fatalf("appender: %v", err)
	}
	p := &proofs{reader: reader}

	mux := http.NewServeMux()
	mux.HandleFunc("POST /add", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || len(body) == 0 {
			http.Error(w, "an entry is a non-empty body", http.StatusBadRequest)
			return
		}
		index, err := appender.Add(r.Context(), tessera.NewEntry(body))()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprintf(w, "%d", index.Index)
	})
	mux.HandleFunc("GET /size", func(w http.ResponseWriter, r *http.Request) {
		size, err := p.latestSize(r.Context())
		if err != nil {
			if os.IsNotExist(err) {
				fmt.Fprint(w, "0")
				return
			}
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprintf(w, "%d", size)
	})
	mux.HandleFunc("GET /proof/{index}", func(w http.ResponseWriter, r *http.Request) {
		index, err := strconv.ParseUint(r.PathValue("index"), 10, 64)
		if err != nil {
			http.Error(w, "the index is not a number", http.StatusBadRequest)
			return
		}
		size, path, err := p.inclusion(r.Context(), index)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"leaf_index": index, "tree_size": size, "audit_path": path})
	})
	mux.HandleFunc("GET /cpu", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%d", cpuMicros())
	})

	server := &http.Server{Addr: *listen, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		shutdownCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_ = server.Shutdown(shutdownCtx)
		_ = shutdown(shutdownCtx)
		os.Exit(0)
	}()
	log.Printf("tessera-peer listening on %s, log in %s", *listen, *storageDir)
	if err := server.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}
