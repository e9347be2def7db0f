package playground

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/locksim/locksim/cmd/locksim/internal/playground/enginehash"
)

// The committed engine was built from the sources as they are: a change to
// the engine (sim, protocols, scenarios, the exports, the command line) without
// go generate would put a page in students' hands that teaches the old model.
// The hash is of the sources, not of the wasm, which changes with Go itself.
func TestTheEngineIsNotStale(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := enginehash.Root(wd)
	if err != nil {
		t.Fatal(err)
	}
	want, err := enginehash.Of(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := Engine(); got != want {
		t.Errorf("the committed engine was built from sources %.12s, they are now %.12s: run go generate ./cmd/locksim/internal/playground and commit what it writes", got, want)
	}
}

// The page is one file: the engine inside it, gzipped (DecompressionStream
// opens it), every script and style inline, no reference to another file or
// server (file:// forbids fetching them, and a class may have no network).
func TestThePageIsOneFile(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, ref := range []string{"src=\"http", "href=\"http", "fetch(", "import(", "<link ", "src=\"//"} {
		if strings.Contains(page, ref) {
			t.Errorf("the page refers outside itself: %q", ref)
		}
	}
	if strings.Contains(page, "{{") {
		t.Errorf("a placeholder is left in the page: %q", page[strings.Index(page, "{{"):][:40])
	}
	zr, err := gzip.NewReader(bytes.NewReader(engine))
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 4)
	if _, err := io.ReadFull(zr, head); err != nil || string(head) != "\x00asm" {
		t.Errorf("the embedded engine is not gzipped WebAssembly: %q, %v", head, err)
	}
	if b.Len() > 4_000_000 {
		t.Errorf("the page is %d bytes, over the 4 MB budget", b.Len())
	}
}
