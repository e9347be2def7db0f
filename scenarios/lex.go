package scenarios

import (
	"fmt"
	"strings"
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
}

// lexed is a whole script split into its header paragraph and command lines.
type lexed struct {
	header []string // the opening comment paragraph, without "# "
	lines  []line
}

// lex splits src into lines of tokens. Words are separated by blanks; a "quoted
// string" is one word. A comment is a line whose first non-blank is '#'; a comment
// block right above a command is its narration; the first block of the file, up to
// the first blank line, is the teaching header.
func lex(file, src string) (*lexed, error) {
	out := &lexed{}
	var pending []string
	inHeader := true
	for i, raw := range strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n") {
		num := i + 1
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
		out.lines = append(out.lines, line{num: num, toks: toks, narration: joinParagraph(pending)})
		pending = nil
	}
	return out, nil
}

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
	File string
	Line int
	Col  int
	Msg  string
	Hint string
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	if e.Hint != "" {
		s += "\n  hint: " + e.Hint
	}
	return s
}
