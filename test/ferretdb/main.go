// Command ferretdb-test serves FerretDB (a MongoDB wire-protocol server) with its SQLite backend on a loopback
// address, so the MongoDB adapter and its tests run against a real server where MongoDB cannot be installed.
// Once it accepts connections it prints one line on stdout,
// "ready <mongodb URI> ferretdb=<module version> mongodb=<version it reports> backend=sqlite"; SIGINT or SIGTERM stops it,
// and so does the end of its stdin with --exit-on-stdin-eof (a test process that dies, even by SIGKILL, closes
// the pipe, so no server outlives the test run).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/build/version"
	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	host := flag.String("host", "127.0.0.1", "address to listen on")
	port := flag.Int("port", 27017, "TCP port to listen on (0 picks a free one; the ready line names it)")
	dataDir := flag.String("data-dir", "", "directory for the SQLite databases (required)")
	logLevel := flag.String("log-level", "warn", "FerretDB log level: debug, info, warn or error")
	exitOnStdinEOF := flag.Bool("exit-on-stdin-eof", false, "stop when stdin reaches its end (the parent went away)")
	idIndex := flag.Bool("id-index", true, "add to each collection the _id index FerretDB's SQLite backend queries by but never creates (false: stock FerretDB, every _id lookup a table scan)")
	flag.Parse()

	if *dataDir == "" {
		fail("--data-dir is required")
	}
	if *port < 0 || *port > 65535 {
		fail("--port must be between 0 and 65535")
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fail("--log-level: " + err.Error())
	}
	dir, err := filepath.Abs(*dataDir)
	if err != nil {
		fail(err.Error())
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		fail(err.Error())
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	server, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: net.JoinHostPort(*host, strconv.Itoa(*port))},
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: "file:" + dir + "/",
	})
	if err != nil {
		fail(err.Error())
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *exitOnStdinEOF {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop()
		}()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := server.Run(ctx); err != nil {
			logger.Error("ferretdb stopped", "error", err)
		}
	}()
	if *idIndex {
		go keepIDIndexes(ctx, dir, 100*time.Millisecond, logger)
	}
	// MongoDBURI waits until the listener is bound, so the line below means "accepting connections".
	fmt.Printf("ready %s ferretdb=%s mongodb=%s backend=sqlite\n", server.MongoDBURI(), ferretdbVersion(), version.Get().MongoDBVersion)
	<-done
}

// ferretdbVersion is the FerretDB module version this binary was built with (the embedded package itself
// reports "unknown").
func ferretdbVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/FerretDB/FerretDB" {
				return dep.Version
			}
		}
	}
	return "unknown"
}

func fail(message string) {
	fmt.Fprintln(os.Stderr, "ferretdb-test: "+message)
	os.Exit(2)
}
