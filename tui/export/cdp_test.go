//go:build browser

package export_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// A small client of the Chrome DevTools Protocol over --remote-debugging-pipe
// (file descriptors 3 and 4, messages ended by a NUL byte): enough to open a
// page, press keys, click, evaluate JavaScript, hear console errors and network
// requests, and take a screenshot, with Debian's chromium and nothing else.

// chromium finds the browser: $LOCKSIM_CHROMIUM, or chromium on the PATH.
func chromium(t testing.TB) string {
	if p := os.Getenv("LOCKSIM_CHROMIUM"); p != "" {
		return p
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("the browser tests need Debian's chromium (apt-get install chromium), or LOCKSIM_CHROMIUM: %v", err)
	}
	return p
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

type browser struct {
	t       testing.TB
	cmd     *exec.Cmd
	in      *os.File // we write commands here (the browser's fd 3)
	mu      sync.Mutex
	nextID  int
	waiting map[int]chan cdpMessage
	events  chan cdpMessage
	dir     string
	stderr  bytes.Buffer
}

// newBrowser starts a headless chromium with a fresh profile and no network of
// its own (no updates, sync or background requests).
func newBrowser(t testing.TB) *browser {
	t.Helper()
	dir := t.TempDir()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, in: inW, waiting: map[int]chan cdpMessage{}, events: make(chan cdpMessage, 4096), dir: dir}
	b.cmd = exec.Command(chromium(t), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-default-apps", "--hide-scrollbars",
		"--user-data-dir="+dir, "--remote-debugging-pipe", "--window-size=1600,1000", "--force-device-scale-factor=1",
		"--allow-file-access-from-files", "about:blank")
	b.cmd.ExtraFiles = []*os.File{inR, outW}
	b.cmd.Stderr = &b.stderr
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	go b.read(outR)
	t.Cleanup(b.close)
	return b
}

func (b *browser) read(r *os.File) {
	defer close(b.events)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, 0); i >= 0 {
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	for sc.Scan() {
		var m cdpMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			continue
		}
		if m.ID != 0 {
			b.mu.Lock()
			ch := b.waiting[m.ID]
			delete(b.waiting, m.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		select {
		case b.events <- m:
		default: // nobody listens to that many events
		}
	}
}

func (b *browser) close() {
	b.in.Close()
	done := make(chan error, 1)
	go func() { done <- b.cmd.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a browser that will not end is killed
	defer cancel()
	select {
	case <-done:
	case <-ctx.Done():
		b.cmd.Process.Kill()
		<-done
	}
}

// call sends one command and waits for its answer.
func (b *browser) call(session, method string, params any) json.RawMessage {
	b.t.Helper()
	res, err := b.try(session, method, params)
	if err != nil {
		b.t.Fatalf("%s: %v\nchromium said: %s", method, err, b.stderr.String())
	}
	return res
}

func (b *browser) try(session, method string, params any) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return b.tryCtx(ctx, session, method, params)
}

// tryCtx sends one command and waits for its answer until ctx is done.
func (b *browser) tryCtx(ctx context.Context, session, method string, params any) (json.RawMessage, error) {
	if params == nil {
		params = map[string]any{}
	}
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMessage, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg, _ := json.Marshal(cdpMessage{ID: id, Method: method, Params: p, SessionID: session})
	if _, err := b.in.Write(append(msg, 0)); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, fmt.Errorf("%s", m.Error.Message)
		}
		return m.Result, nil
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.waiting, id) // a late answer goes nowhere (ch has room for it)
		b.mu.Unlock()
		return nil, fmt.Errorf("no answer: %w", context.Cause(ctx))
	}
}

// page is one tab, with what it logged.
type page struct {
	b        *browser
	session  string
	mu       sync.Mutex
	problems []string // console errors, exceptions, requests that left the machine
	loaded   chan struct{}
}

// newPage opens a tab at w×h CSS pixels and listens to its console and network.
func (b *browser) newPage(w, h int) *page {
	var target struct{ TargetID string }
	json.Unmarshal(b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}), &target)
	var att struct{ SessionID string }
	json.Unmarshal(b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}), &att)
	p := &page{b: b, session: att.SessionID, loaded: make(chan struct{}, 16)}
	go p.listen()
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable", "Network.enable"} {
		b.call(p.session, m, nil)
	}
	b.call(p.session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": w, "height": h, "deviceScaleFactor": 1, "mobile": false})
	return p
}

// listen files what the page reports. There is one page per browser in these
// tests, so every event is this page's.
func (p *page) listen() {
	for m := range p.b.events {
		var v map[string]any
		json.Unmarshal(m.Params, &v)
		switch m.Method {
		case "Page.loadEventFired":
			p.loaded <- struct{}{}
		case "Runtime.exceptionThrown":
			p.problem(fmt.Sprintf("exception: %v", v["exceptionDetails"]))
		case "Runtime.consoleAPICalled":
			if v["type"] == "error" || v["type"] == "assert" {
				p.problem(fmt.Sprintf("console.%v: %v", v["type"], v["args"]))
			}
		case "Log.entryAdded":
			if e, _ := v["entry"].(map[string]any); e != nil && e["level"] == "error" {
				p.problem(fmt.Sprintf("log: %v %v", e["text"], e["url"]))
			}
		case "Network.requestWillBeSent":
			if r, _ := v["request"].(map[string]any); r != nil {
				u, _ := r["url"].(string)
				if !strings.HasPrefix(u, "file:") && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "about:") && !strings.HasPrefix(u, "blob:") { // blob: is the page's own memory
					p.problem("a request left the page: " + u)
				}
			}
		}
	}
}

func (p *page) problem(s string) {
	p.mu.Lock()
	p.problems = append(p.problems, s)
	p.mu.Unlock()
}

// Problems returns what went wrong so far.
func (p *page) Problems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.problems...)
}

// open navigates to a file and waits for its load event; it returns how long
// the page took from the start of navigation to its second painted frame.
func (p *page) open(path string) time.Duration {
	p.b.t.Helper()
	for len(p.loaded) > 0 {
		<-p.loaded
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p.b.call(p.session, "Page.navigate", map[string]any{"url": "file://" + path})
	select {
	case <-p.loaded:
	case <-ctx.Done():
		p.b.t.Fatalf("%s did not load in 60s", path)
	}
	var ms float64
	p.eval(`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now()))))`, &ms)
	return time.Duration(ms * float64(time.Millisecond))
}

// eval evaluates a JavaScript expression (awaiting a promise) into out.
func (p *page) eval(expr string, out any) {
	p.b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := p.evalCtx(ctx, expr, out); err != nil {
		p.b.t.Fatalf("Runtime.evaluate: %v\nchromium said: %s", err, p.b.stderr.String())
	}
}

// evalCtx is eval with a deadline: it returns the error of a call that got no
// answer before ctx was done (a JavaScript exception still fails the test).
func (p *page) evalCtx(ctx context.Context, expr string, out any) error {
	p.b.t.Helper()
	res, err := p.b.tryCtx(ctx, p.session, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true})
	if err != nil {
		return err
	}
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	json.Unmarshal(res, &r)
	if r.ExceptionDetails != nil {
		p.b.t.Fatalf("%s: %s %s", expr, r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result.Value, out); err != nil {
			p.b.t.Fatalf("%s: %v (%s)", expr, err, r.Result.Value)
		}
	}
	return nil
}

// key presses and releases one key, as a person at the keyboard does.
func (p *page) key(key, code string, keyCode int) {
	for _, typ := range []string{"keyDown", "keyUp"} {
		params := map[string]any{"type": typ, "key": key, "code": code, "windowsVirtualKeyCode": keyCode}
		if typ == "keyDown" && len(key) == 1 {
			params["text"] = key
		}
		p.b.call(p.session, "Input.dispatchKeyEvent", params)
	}
}

// click clicks the middle of the first element matching a CSS selector.
func (p *page) click(selector string) {
	p.b.t.Helper()
	var r struct{ X, Y float64 }
	p.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect(); return {X: r.x + r.width / 2, Y: r.y + r.height / 2}; })()`, selector), &r)
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		p.b.call(p.session, "Input.dispatchMouseEvent", map[string]any{"type": typ, "x": r.X, "y": r.Y, "button": "left", "clickCount": 1})
	}
}

// screenshot captures the viewport.
func (p *page) screenshot() (image.Image, []byte) {
	p.b.t.Helper()
	var r struct{ Data string }
	json.Unmarshal(p.b.call(p.session, "Page.captureScreenshot", map[string]any{"format": "png"}), &r)
	raw, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		p.b.t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		p.b.t.Fatal(err)
	}
	return img, raw
}
