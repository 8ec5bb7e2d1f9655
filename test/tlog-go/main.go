// The Go side of packages/common/src/tlog's interoperability test: golang.org/x/mod's sumdb/note and sumdb/tlog
// read what the TypeScript module writes, and write what it must read; transparency-dev/formats' note package
// does the same for C2SP cosignatures (cosignature/v1). One JSON request on stdin, one JSON answer on stdout.
// A request with "live" reads a running vct-log's tlog-tiles over HTTP instead (live.go).
package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"

	tdnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type tileRef struct {
	L int   `json:"l"`
	N int64 `json:"n"`
	W int   `json:"w"`
}

type request struct {
	VerifierKey string       `json:"verifierKey"`
	Note        string       `json:"note"`
	SignerKey   string       `json:"signerKey"`
	Text        string       `json:"text"`
	Entries     []string     `json:"entries"`
	Tiles       []tileRef    `json:"tiles"`
	Live        *liveRequest `json:"live"`
	Cosigned    *cosignedReq `json:"cosigned"`
}

// A checkpoint note the log signed and witnesses cosigned: Go opens it with the log's key and each
// witness's cosignature/v1 key, and cosigns its text itself with a witness signer key.
type cosignedReq struct {
	Note           string   `json:"note"`
	LogVerifierKey string   `json:"logVerifierKey"`
	WitnessKeys    []string `json:"witnessKeys"`
	SignerKey      string   `json:"signerKey"`
}

type cosignedAnswer struct {
	OpenedBy   []string `json:"openedBy"`
	Timestamps []int64  `json:"timestamps"`
	Unverified []string `json:"unverified"`
	Cosigned   string   `json:"cosigned"`
}

type answer struct {
	OpenedText string   `json:"openedText"`
	OpenedBy   []string `json:"openedBy"`
	Signed     string   `json:"signed"`
	Root       string   `json:"root"`
	TilePaths  []string `json:"tilePaths"`
	TileData   []string `json:"tileData"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	var req request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		return err
	}
	if req.Live != nil {
		live, err := readLive(*req.Live)
		if err != nil {
			return err
		}
		return json.NewEncoder(os.Stdout).Encode(live)
	}
	if req.Cosigned != nil {
		out, err := openCosigned(*req.Cosigned)
		if err != nil {
			return err
		}
		return json.NewEncoder(os.Stdout).Encode(out)
	}
	var out answer

	verifier, err := note.NewVerifier(req.VerifierKey)
	if err != nil {
		return fmt.Errorf("verifier key: %w", err)
	}
	opened, err := note.Open([]byte(req.Note), note.VerifierList(verifier))
	if err != nil {
		return fmt.Errorf("open note: %w", err)
	}
	out.OpenedText = opened.Text
	for _, sig := range opened.Sigs {
		out.OpenedBy = append(out.OpenedBy, fmt.Sprintf("%s+%08x", sig.Name, sig.Hash))
	}

	signer, err := note.NewSigner(req.SignerKey)
	if err != nil {
		return fmt.Errorf("signer key: %w", err)
	}
	signed, err := note.Sign(&note.Note{Text: req.Text}, signer)
	if err != nil {
		return fmt.Errorf("sign: %w", err)
	}
	out.Signed = string(signed)

	// The tree of the entries, as tlog stores it, and what it reads from it.
	var stored []tlog.Hash
	reader := tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		hashes := make([]tlog.Hash, len(indexes))
		for i, index := range indexes {
			hashes[i] = stored[index]
		}
		return hashes, nil
	})
	for n, entry := range req.Entries {
		data, err := base64.StdEncoding.DecodeString(entry)
		if err != nil {
			return err
		}
		hashes, err := tlog.StoredHashes(int64(n), data, reader)
		if err != nil {
			return err
		}
		stored = append(stored, hashes...)
	}
	root, err := tlog.TreeHash(int64(len(req.Entries)), reader)
	if err != nil {
		return err
	}
	out.Root = base64.StdEncoding.EncodeToString(root[:])
	for _, ref := range req.Tiles {
		tile := tlog.Tile{H: 8, L: ref.L, N: ref.N, W: ref.W}
		out.TilePaths = append(out.TilePaths, tile.Path())
		data, err := tlog.ReadTileData(tile, reader)
		if err != nil {
			return fmt.Errorf("tile %s: %w", tile.Path(), err)
		}
		out.TileData = append(out.TileData, base64.StdEncoding.EncodeToString(data))
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}

func openCosigned(req cosignedReq) (cosignedAnswer, error) {
	var out cosignedAnswer
	logVerifier, err := note.NewVerifier(req.LogVerifierKey)
	if err != nil {
		return out, fmt.Errorf("log verifier key: %w", err)
	}
	verifiers := []note.Verifier{logVerifier}
	for _, key := range req.WitnessKeys {
		v, err := tdnote.NewVerifierForCosignatureV1(key)
		if err != nil {
			return out, fmt.Errorf("witness key %q: %w", key, err)
		}
		verifiers = append(verifiers, v)
	}
	opened, err := note.Open([]byte(req.Note), note.VerifierList(verifiers...))
	if err != nil {
		return out, fmt.Errorf("open cosigned note: %w", err)
	}
	for _, sig := range opened.Sigs {
		out.OpenedBy = append(out.OpenedBy, fmt.Sprintf("%s+%08x", sig.Name, sig.Hash))
		if sig.Name == logVerifier.Name() && sig.Hash == logVerifier.KeyHash() {
			out.Timestamps = append(out.Timestamps, 0)
			continue
		}
		t, err := tdnote.CoSigV1Timestamp(sig)
		if err != nil {
			return out, err
		}
		out.Timestamps = append(out.Timestamps, t.Unix())
	}
	for _, sig := range opened.UnverifiedSigs {
		out.Unverified = append(out.Unverified, fmt.Sprintf("%s+%08x", sig.Name, sig.Hash))
	}
	if req.SignerKey != "" {
		signer, err := tdnote.NewSignerForCosignatureV1(req.SignerKey)
		if err != nil {
			return out, fmt.Errorf("cosigner key: %w", err)
		}
		cosigned, err := note.Sign(&note.Note{Text: opened.Text}, signer)
		if err != nil {
			return out, err
		}
		out.Cosigned = string(cosigned)
	}
	return out, nil
}
