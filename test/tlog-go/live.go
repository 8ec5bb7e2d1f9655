package main

// Live mode: a tlog-tiles client of a running log. It fetches the checkpoint, opens it with the log's note
// verifier key, reads hash tiles through tlog.TileHashReader (which checks every tile against the signed
// root), and checks inclusion proofs of entries read from entry bundles and a consistency proof from an
// earlier checkpoint.

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type liveRequest struct {
	// The alias's URL: <base>/<alias>.
	URL         string `json:"url"`
	VerifierKey string `json:"verifierKey"`
	Origin      string `json:"origin"`
	// An earlier checkpoint note of the same log, proved consistent with the current one.
	OldNote string  `json:"oldNote"`
	Leaves  []int64 `json:"leaves"`
}

type liveAnswer struct {
	Size       int64    `json:"size"`
	Root       string   `json:"root"`
	OldSize    int64    `json:"oldSize"`
	LeafHashes []string `json:"leafHashes"`
	TilesRead  []string `json:"tilesRead"`
}

type checkpoint struct {
	origin string
	tree   tlog.Tree
}

func openCheckpoint(msg []byte, verifiers note.Verifiers) (checkpoint, error) {
	n, err := note.Open(msg, verifiers)
	if err != nil {
		return checkpoint{}, fmt.Errorf("open checkpoint: %w", err)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 {
		return checkpoint{}, fmt.Errorf("checkpoint %q has fewer than three lines", n.Text)
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		return checkpoint{}, fmt.Errorf("checkpoint size: %w", err)
	}
	root, err := tlog.ParseHash(lines[2])
	if err != nil {
		return checkpoint{}, fmt.Errorf("checkpoint root: %w", err)
	}
	return checkpoint{origin: lines[0], tree: tlog.Tree{N: size, Hash: root}}, nil
}

// C2SP tile paths drop Go's height segment and call data tiles entries.
func c2spPath(t tlog.Tile) string {
	path := strings.TrimPrefix(t.Path(), "tile/8/")
	return "tile/" + strings.Replace(path, "data/", "entries/", 1)
}

type httpTiles struct {
	base   string
	client *http.Client
	read   []string
}

func (h *httpTiles) get(path string) ([]byte, error) {
	resp, err := h.client.Get(h.base + "/" + path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d %s", path, resp.StatusCode, bytes.TrimSpace(body))
	}
	return body, nil
}

func (h *httpTiles) Height() int { return 8 }

func (h *httpTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	data := make([][]byte, len(tiles))
	for i, t := range tiles {
		path := c2spPath(t)
		body, err := h.get(path)
		if err != nil {
			return nil, err
		}
		h.read = append(h.read, path)
		data[i] = body
	}
	return data, nil
}

func (h *httpTiles) SaveTiles([]tlog.Tile, [][]byte) {}

func readLive(req liveRequest) (liveAnswer, error) {
	var out liveAnswer
	verifier, err := note.NewVerifier(req.VerifierKey)
	if err != nil {
		return out, fmt.Errorf("verifier key: %w", err)
	}
	verifiers := note.VerifierList(verifier)
	tiles := &httpTiles{base: req.URL, client: &http.Client{Timeout: 30 * time.Second}}
	raw, err := tiles.get("checkpoint")
	if err != nil {
		return out, err
	}
	current, err := openCheckpoint(raw, verifiers)
	if err != nil {
		return out, err
	}
	old, err := openCheckpoint([]byte(req.OldNote), verifiers)
	if err != nil {
		return out, fmt.Errorf("old %w", err)
	}
	for _, c := range []checkpoint{current, old} {
		if c.origin != req.Origin {
			return out, fmt.Errorf("checkpoint origin %q, want %q", c.origin, req.Origin)
		}
	}
	out.Size, out.OldSize = current.tree.N, old.tree.N
	out.Root = base64.StdEncoding.EncodeToString(current.tree.Hash[:])
	hashes := tlog.TileHashReader(current.tree, tiles)

	for _, index := range req.Leaves {
		bundleIndex := index / 256
		width := current.tree.N - bundleIndex*256
		if width > 256 {
			width = 256
		}
		bundle := tlog.Tile{H: 8, L: -1, N: bundleIndex, W: int(width)}
		data, err := tiles.ReadTiles([]tlog.Tile{bundle})
		if err != nil {
			return out, err
		}
		entry, err := bundleEntry(data[0], int(index%256))
		if err != nil {
			return out, fmt.Errorf("%s: %w", c2spPath(bundle), err)
		}
		leaf := tlog.RecordHash(entry)
		proof, err := tlog.ProveRecord(current.tree.N, index, hashes)
		if err != nil {
			return out, fmt.Errorf("prove record %d: %w", index, err)
		}
		if err := tlog.CheckRecord(proof, current.tree.N, current.tree.Hash, index, leaf); err != nil {
			return out, fmt.Errorf("check record %d: %w", index, err)
		}
		out.LeafHashes = append(out.LeafHashes, base64.StdEncoding.EncodeToString(leaf[:]))
	}

	proof, err := tlog.ProveTree(current.tree.N, old.tree.N, hashes)
	if err != nil {
		return out, fmt.Errorf("prove tree %d -> %d: %w", old.tree.N, current.tree.N, err)
	}
	if err := tlog.CheckTree(proof, current.tree.N, current.tree.Hash, old.tree.N, old.tree.Hash); err != nil {
		return out, fmt.Errorf("check tree %d -> %d: %w", old.tree.N, current.tree.N, err)
	}
	out.TilesRead = tiles.read
	return out, nil
}

// The i-th entry of a C2SP entry bundle (each entry a big-endian 16-bit length and its bytes).
func bundleEntry(bundle []byte, i int) ([]byte, error) {
	for at, n := 0, 0; at < len(bundle); n++ {
		if at+2 > len(bundle) {
			return nil, fmt.Errorf("bundle ends inside a length")
		}
		length := int(bundle[at])<<8 | int(bundle[at+1])
		if at+2+length > len(bundle) {
			return nil, fmt.Errorf("bundle ends inside an entry")
		}
		if n == i {
			return bundle[at+2 : at+2+length], nil
		}
		at += 2 + length
	}
	return nil, fmt.Errorf("bundle has no entry %d", i)
}
