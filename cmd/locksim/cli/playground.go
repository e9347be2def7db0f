//go:build !js

package cli

import (
	"bytes"
	"fmt"
	"github.com/locksim/locksim/scenarios"
	"io"

	"github.com/locksim/locksim/cmd/locksim/internal/playground"
)

func cmdPlayground(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("playground", "playground [--out FILE]",
		"Writes the playground: one HTML file that edits, runs, walks, explores and checks a scenario in a\n"+
			"browser, offline, with nothing installed (open it from disk, or put it on any web server as it is).\n"+
			"Its engine is this locksim's, compiled to WebAssembly. See docs/playground.md.")
	out := fs.String("out", "locksim-playground.html", "the file to write (- for standard output)")
	pos, err := parseFlags(fs, args, stdout, stderr)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("playground takes no arguments (got %q); the file is --out", pos[0])
	}
	if app.catalogue != nil {
		return usagef("the playground's engine is locksim's own, without %s's kinds and catalogue", app.name)
	}
	var b bytes.Buffer
	if err := playground.Write(&b); err != nil {
		return outputError{err}
	}
	if *out == "-" {
		_, err := stdout.Write(b.Bytes())
		return err
	}
	if err := writeFileAtomic(*out, b.Bytes()); err != nil {
		return outputError{err}
	}
	fmt.Fprintf(stdout, "wrote %s (%s): open it in a browser, from disk or from a server\n", scenarios.Shown(*out), sizeText(b.Len()))
	return nil
}

func sizeText(n int) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
