// Command locksim simulates, checks and shows distributed lock protocols: the
// built-in ones and their catalogue. The command line itself is package cli, so
// that a program of your own can run it with its own kinds (docs/your-protocol.md).
package main

import "github.com/locksim/locksim/cmd/locksim/cli"

func main() { cli.Main() }
