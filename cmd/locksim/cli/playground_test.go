package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// locksim playground writes one page (issue 29); bad usage is exit 2, a file
// that cannot be written exit 3. What the page does is tested in a browser
// (tui/export/playground_browser_test.go).
func TestPlaygroundWritesOnePage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.html")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"playground", "--out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) || !bytes.Contains(b, []byte(`id="engine"`)) || !strings.Contains(stdout.String(), "wrote "+out) {
		t.Errorf("the page (%d bytes) or the report %q is not the playground", len(b), stdout.String())
	}
	if code := run([]string{"playground", "extra"}, &stdout, &stderr); code != 2 {
		t.Errorf("playground extra: exit %d, want 2", code)
	}
	if code := run([]string{"playground", "--out", filepath.Join(t.TempDir(), "no", "such", "dir", "p.html")}, &stdout, &stderr); code != 3 {
		t.Errorf("playground into a missing directory: exit %d, want 3", code)
	}
}
