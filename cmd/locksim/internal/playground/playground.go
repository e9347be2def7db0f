// Package playground writes locksim's playground: one self-contained HTML file
// that edits, runs, walks, explores and checks a scenario in the browser, with
// nothing installed and no server (file:// or hosted as it is). The engine is
// the command line compiled to WebAssembly (cmd/locksim-wasm), gzipped and
// embedded in the page, which decompresses it with DecompressionStream.
//
// go generate builds the engine (gen), and records the hash of the sources it
// was built from; TestTheEngineIsNotStale fails when they have changed since.
package playground

//go:generate go run ./gen

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"io"
	"strings"
)

var (
	//go:embed engine.wasm.gz
	engine []byte
	//go:embed engine.sha256
	engineHash string
	//go:embed page/page.html
	pageHTML string
	//go:embed page/page.css
	pageCSS string
	//go:embed page/page.js
	pageJS string
	//go:embed page/memfs.js
	memfsJS string
	//go:embed page/wasm_exec.js
	wasmExecJS string
	//go:embed page/worker.js
	workerJS string
)

// Engine is the hash of the sources the embedded engine was built from.
func Engine() string { return strings.TrimSpace(engineHash) }

// Write writes the playground page.
func Write(w io.Writer) error {
	var b bytes.Buffer
	b.Grow(len(engine)*4/3 + 200_000)
	enc := base64.NewEncoder(base64.StdEncoding, &b)
	enc.Write(engine)
	enc.Close()
	page := strings.NewReplacer(
		"{{css}}", pageCSS,
		"{{version}}", "locksim engine "+Engine()[:min(12, len(Engine()))],
		"{{engine-js}}", memfsJS+"\n"+wasmExecJS,
		"{{worker-js}}", workerJS,
		"{{page-js}}", pageJS,
		"{{engine}}", b.String(),
	).Replace(pageHTML)
	_, err := io.WriteString(w, page)
	return err
}
