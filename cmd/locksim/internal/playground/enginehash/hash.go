// Package enginehash names the playground's engine by its sources: the hash of
// every file of the module that the browser's build (GOOS=js GOARCH=wasm
// ./cmd/locksim-wasm) compiles or embeds, with go.mod and go.sum. The wasm
// bytes themselves change with the Go version; the sources are what a stale
// engine would teach wrongly.
package enginehash

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Of is the engine's hash, from the module rooted at root. It runs go list.
func Of(root string) (string, error) {
	cmd := exec.Command("go", "list", "-deps", "-json=Dir,Module,GoFiles,EmbedFiles", "./cmd/locksim-wasm")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list: %v: %s", err, stderr.String())
	}
	var files []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			Dir                 string
			Module              *struct{ Main bool }
			GoFiles, EmbedFiles []string
		}
		if err := dec.Decode(&p); err != nil {
			return "", err
		}
		if p.Module == nil || !p.Module.Main {
			continue // the standard library and the dependencies: pinned by go.sum and the toolchain
		}
		for _, f := range append(p.GoFiles, p.EmbedFiles...) {
			rel, err := filepath.Rel(root, filepath.Join(p.Dir, f))
			if err != nil {
				return "", err
			}
			files = append(files, filepath.ToSlash(rel))
		}
	}
	files = append(files, "go.mod", "go.sum")
	slices.Sort(files)
	files = slices.Compact(files)
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return "", err
		}
		// Line ends as git checks them out on any machine.
		b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Root is the module's root: the nearest directory at or above dir with a go.mod.
func Root(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod at or above %s", strings.TrimSpace(dir))
		}
	}
}
