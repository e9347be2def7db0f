//go:build !(js && wasm)

// Command locksim-wasm is locksim's engine for the browser; it is built with
// GOOS=js GOARCH=wasm (see main.go). Built for this machine, it only says so.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "locksim-wasm is the playground's engine: build it with GOOS=js GOARCH=wasm (go generate ./cmd/locksim/internal/playground), and write the page with locksim playground")
	os.Exit(2)
}
