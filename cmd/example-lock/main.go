// Command example-lock is locksim with a lock of its own: the session lock of
// package sessionlock, registered as two process kinds, with its own catalogue
// (scenarios/*.scn). It has every subcommand locksim has:
//
//	go run ./cmd/example-lock verify
//	go run ./cmd/example-lock run paused-holder
//	go run ./cmd/example-lock tui paused-holder
//	go run ./cmd/example-lock explore cmd/example-lock/scenarios/broken.scn --budget 20s
//
// It is written as a user would write it, against locksim's public packages
// only (public_test.go proves it); docs/your-protocol.md walks through it.
package main

import (
	"embed"
	"io/fs"

	"github.com/locksim/locksim/cmd/locksim/cli"
)

//go:embed scenarios/*.scn
var files embed.FS

// tutorial:begin main
// catalogue is the example's scenarios, embedded in the binary.
func catalogue() fs.FS {
	sub, err := fs.Sub(files, "scenarios")
	if err != nil {
		panic(err) // the embed pattern above guarantees the folder
	}
	return sub
}

func main() {
	cli.Main(cli.WithName("example-lock"), cli.WithKinds(Kinds()...), cli.WithCatalogue(catalogue()))
}

// tutorial:end main
