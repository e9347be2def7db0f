//go:build unix

package scenarios

import (
	"os"
	"syscall"
	"time"
)

// openPipe opens a named pipe for reading, waiting at most pipeWait for a
// writer. The open runs on its own goroutine because the system call blocks;
// when no writer comes, opening the pipe for writing ourselves releases it.
func openPipe(path string) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		if o.err == nil {
			o.f.SetReadDeadline(time.Now().Add(pipeWait))
		}
		return o.f, o.err
	case <-time.After(pipeWait):
		// Release the open: a writer that opens and closes at once ends it.
		// Until the open has reached the kernel, there is no reader to pair
		// with, so try for a while; then close what it returns.
		go func() {
			for tries := 0; ; tries++ {
				if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close()
				}
				select {
				case o := <-done:
					if o.err == nil {
						o.f.Close()
					}
					return
				case <-time.After(10 * time.Millisecond):
					if tries > 500 {
						return
					}
				}
			}
		}()
		return nil, errNoWriter
	}
}
