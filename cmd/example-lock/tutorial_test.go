package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/locksim/locksim/sim/simtest"
)

// docs/your-protocol.md shows this example's code: each Go block follows a
// `<!-- tutorial: NAME -->` line and is, word for word, the region between
// `// tutorial:begin NAME` and `// tutorial:end NAME` in the example's sources,
// which go test compiles; each block after `<!-- file: PATH -->` is that file.
// Every region is shown, and every Go block is one of them.

var (
	docBlock = regexp.MustCompile("(?m)^<!-- (tutorial|file): (\\S+) -->\n```[a-z]*\n((?s:.*?))\n```$")
	goFence  = regexp.MustCompile("(?m)^```go$")
)

func TestTutorialCodeIsTheExamplesCode(t *testing.T) {
	doc, err := os.ReadFile("../../docs/your-protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	regions := tutorialRegions(t)
	shown := map[string]bool{}
	goBlocks := 0
	for _, m := range docBlock.FindAllStringSubmatch(string(doc), -1) {
		what, name, body := m[1], m[2], m[3]
		var want string
		if what == "file" {
			b, err := os.ReadFile(filepath.Join("../..", name))
			if err != nil {
				t.Errorf("the tutorial shows %s, which does not exist", name)
				continue
			}
			want = strings.TrimRight(string(b), "\n")
		} else {
			goBlocks++
			var ok bool
			if want, ok = regions[name]; !ok {
				t.Errorf("the tutorial shows region %q, which no example file marks", name)
				continue
			}
			shown[name] = true
		}
		if body != want {
			t.Errorf("the tutorial's %s %s differs from the example's:\n%s", what, name, simtest.FirstDiff(want, body))
		}
	}
	if n := len(goFence.FindAllString(string(doc), -1)); n != goBlocks {
		t.Errorf("the tutorial has %d Go blocks, %d of them marked: mark each with <!-- tutorial: NAME -->", n, goBlocks)
	}
	for name := range regions {
		if !shown[name] {
			t.Errorf("region %q is marked in the example but not shown in the tutorial", name)
		}
	}
	if len(regions) < 5 {
		t.Errorf("found %d regions, want the example's every one", len(regions))
	}
}

// tutorialRegions reads the marked regions of the example's Go files.
func tutorialRegions(t *testing.T) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(path, ".go") {
			return err
		}
		b, _ := os.ReadFile(path)
		var name string
		var lines []string
		for _, ln := range strings.Split(string(b), "\n") {
			switch {
			case strings.HasPrefix(ln, "// tutorial:begin "):
				name, lines = strings.TrimPrefix(ln, "// tutorial:begin "), nil
			case strings.HasPrefix(ln, "// tutorial:end ") && name != "":
				out[name] = strings.Trim(strings.Join(lines, "\n"), "\n")
				name = ""
			case name != "":
				lines = append(lines, ln)
			}
		}
		return nil
	})
	return out
}
