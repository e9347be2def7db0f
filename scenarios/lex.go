package scenarios

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one word of a line, with its 1-based column.
type token struct {
	text   string
	col    int
	quoted bool // some of it was "quoted"
}

// line is one command line: its words and the narration comments above it.
type line struct {
	num       int
	toks      []token
	narration string
	question  string // the comment block's "ask:" lines: the walk's question
}

// askPrefix starts a comment line that is the question a walk asks at the
// command below it, before it shows the rows and the narration that answer it.
const askPrefix = "ask:"

// lexed is a whole script split into its header paragraph and command lines.
type lexed struct {
	header []string // the opening comment paragraph, without "# "
	lines  []line
}

// Normalize returns a script's text as the language reads it: without a UTF-8
// byte-order mark, and with every line ending (CRLF, or a lone CR from old Mac
// files) a newline.
func Normalize(src string) string {
	src = strings.TrimPrefix(src, "\ufeff")
	return strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n")
}

// lex splits src into lines of tokens. Words are separated by blanks; a "quoted
// string" is one word. A comment is a line whose first non-blank is '#'; a comment
// block right above a command is its narration; the first block of the file, up to
// the first blank line, is the teaching header. A script is text: a byte that is
// not valid UTF-8, or a character that prints nothing (a control character, an
// escape sequence's ESC, a bidirectional override), is an error wherever it stands,
// comments included, so nothing a script says can reach a terminal as a command.
func lex(file, src string) (*lexed, error) {
	out := &lexed{}
	var pending []string
	inHeader := true
	for i, raw := range strings.Split(Normalize(src), "\n") {
		num := i + 1
		if err := checkText(file, num, raw); err != nil {
			return nil, err
		}
		trim := strings.TrimSpace(raw)
		switch {
		case trim == "":
			if inHeader && len(out.header) > 0 {
				inHeader = false
			}
			pending = nil
			continue
		case strings.HasPrefix(trim, "#"):
			text := strings.TrimSpace(strings.TrimPrefix(trim, "#"))
			if inHeader {
				out.header = append(out.header, text)
			} else {
				pending = append(pending, text)
			}
			continue
		}
		inHeader = false
		toks, err := splitWords(file, num, raw)
		if err != nil {
			return nil, err
		}
		narr, ask := splitAsk(pending)
		out.lines = append(out.lines, line{num: num, toks: toks, narration: joinParagraph(narr), question: joinParagraph(ask)})
		pending = nil
	}
	return out, nil
}

// splitAsk separates a comment block's "ask:" lines (and the lines that
// continue one, up to the next blank comment line or narration) from its
// narration.
func splitAsk(block []string) (narr, ask []string) {
	asking := false
	for _, l := range block {
		if q, ok := cutFold(l, askPrefix); ok {
			asking = true
			ask = append(ask, strings.TrimSpace(q))
			continue
		}
		if asking && l != "" {
			ask = append(ask, l)
			continue
		}
		asking = false
		narr = append(narr, l)
	}
	return narr, ask
}

// cutFold is strings.CutPrefix, the prefix matched in any case.
func cutFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// checkText refuses a line that is not printable text (a tab is a blank).
func checkText(file string, num int, raw string) error {
	for i, r := range raw {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(raw[i:], "\ufffd"):
			return &Error{File: file, Line: num, Col: i + 1, Msg: "the file is not UTF-8 text",
				Hint: "save the scenario as UTF-8 plain text"}
		case r != '\t' && !unicode.IsGraphic(r):
			return &Error{File: file, Line: num, Col: i + 1, Msg: fmt.Sprintf("the character %U prints nothing", r),
				Hint: "a scenario is plain text: remove the control character"}
		}
	}
	return nil
}

// maxQuoted is how much of a word an error message shows: enough to recognise
// it, never a whole megabyte pasted by mistake.
const maxQuoted = 80

// short is s cut to maxQuoted characters, the cut marked with "…".
// It reads at most maxQuoted runes, so a megabyte-long word costs no more than
// a short one (issue 32: an error on a long list was quadratic).
func short(s string) string {
	n := 0
	for i := range s {
		if n == maxQuoted-1 {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == len(s[i:]) {
				return s // the last rune: the whole word fits
			}
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// quote is a word as error messages show it: short, and quoted.
func quote(s string) string { return strconv.Quote(short(s)) }

func splitWords(file string, num int, raw string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(raw) {
		c := raw[i]
		if c == ' ' || c == '\t' {
			i++
			continue
		}
		if c == '#' {
			break // a trailing comment
		}
		start := i
		quoted := false
		var b strings.Builder
		for i < len(raw) && raw[i] != ' ' && raw[i] != '\t' {
			if raw[i] == '"' {
				quoted = true
				end := strings.IndexByte(raw[i+1:], '"')
				if end < 0 {
					return nil, &Error{File: file, Line: num, Col: i + 1, Msg: "unterminated quoted string",
						Hint: `close it with a second "`}
				}
				b.WriteString(raw[i+1 : i+1+end])
				i += end + 2
				continue
			}
			b.WriteByte(raw[i])
			i++
		}
		toks = append(toks, token{text: b.String(), col: start + 1, quoted: quoted})
	}
	return toks, nil
}

// joinParagraph joins comment lines into text, keeping empty comment lines as
// paragraph breaks.
func joinParagraph(ls []string) string {
	var b strings.Builder
	for i, l := range ls {
		switch {
		case l == "":
			b.WriteString("\n\n")
		case i > 0 && ls[i-1] != "":
			b.WriteString(" " + l)
		default:
			b.WriteString(l)
		}
	}
	return strings.TrimSpace(b.String())
}

// Error is a scenario error with its position, what was expected and a hint.
type Error struct {
	File string // the scenario file
	Line int    // 1-based line
	Col  int    // 1-based column
	Msg  string // what is wrong, and what was expected
	Hint string // how to fix it ("" for none)
}

// Error is "FILE:LINE:COL: MSG", then the hint on a line of its own.
func (e *Error) Error() string {
	s := fmt.Sprintf("%s:%d:%d: %s", Shown(e.File), e.Line, e.Col, e.Msg)
	if e.Hint != "" {
		s += "\n  hint: " + e.Hint
	}
	return s
}
