// Command gen builds the playground's engine: GOOS=js GOARCH=wasm go build
// ./cmd/locksim-wasm, gzipped into ../engine.wasm.gz, with Go's wasm_exec.js
// beside it and the hash of the sources it was built from in ../engine.sha256
// (enginehash.Of). Run by go generate in cmd/locksim/internal/playground; a
// test fails when the committed engine is stale.
package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/locksim/locksim/cmd/locksim/internal/playground/enginehash"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run() error {
	here, err := os.Getwd() // go generate runs in the playground's directory
	if err != nil {
		return err
	}
	root, err := enginehash.Root(here)
	if err != nil {
		return err
	}
	hash, err := enginehash.Of(root)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "locksim-wasm-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	wasm := filepath.Join(tmp, "engine.wasm")
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w -X main.engine="+hash[:12], "-o", wasm, "./cmd/locksim-wasm")
	build.Dir, build.Stdout, build.Stderr = root, os.Stdout, os.Stderr
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if err := build.Run(); err != nil {
		return fmt.Errorf("building the engine: %v", err)
	}
	raw, err := os.ReadFile(wasm)
	if err != nil {
		return err
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(raw)
	if err := zw.Close(); err != nil {
		return err
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return err
	}
	execJS, err := os.ReadFile(filepath.Join(string(bytes.TrimSpace(goroot)), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return err
	}
	for name, b := range map[string][]byte{
		"engine.wasm.gz":    gz.Bytes(),
		"page/wasm_exec.js": execJS,
		"engine.sha256":     []byte(hash + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(here, name), b, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("engine %s: %d bytes, %d gzipped\n", hash[:12], len(raw), gz.Len())
	return nil
}
