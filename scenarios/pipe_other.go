//go:build !unix

package scenarios

import "os"

// openPipe opens a named pipe: where there are none to block on (js, Windows
// named pipes are not files), an ordinary open.
func openPipe(path string) (*os.File, error) { return os.Open(path) }
