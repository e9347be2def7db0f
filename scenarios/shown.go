package scenarios

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A file's name comes from whoever made the file, and reaches terminals,
// generated scenarios, SVG and HTML. A name with an escape sequence in it would
// write to the user's clipboard or clear their screen; one with a newline would
// add a line to a scenario written from it (issue 32). So every name a person
// or a file reads goes through Shown or ShellWord.

// printable reports whether every character of s prints as itself: valid
// UTF-8, no control character, no invisible formatting character.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsGraphic(r) || (r != ' ' && unicode.IsSpace(r)) {
			return false
		}
	}
	return true
}

// Shown is a name (a path, an id) as a person reads it: as written when every
// character prints, else Go-quoted ("evil\x1b[2J.scn"), so nothing in it acts
// on a terminal or breaks a line.
func Shown(name string) string {
	if printable(name) {
		return name
	}
	return strconv.Quote(name)
}

// safeID is an id made from a file's name with every character that does not
// print written as its escape: it appears in headers, exports and generated
// scenarios, where no quotes surround it.
func safeID(name string) string {
	if printable(name) {
		return name
	}
	q := strconv.Quote(name)
	return q[1 : len(q)-1]
}

// ShellWord is s as a POSIX shell reads it back as one word: as written when
// it needs no quoting, in single quotes when it has spaces or characters a
// shell treats specially, and as $'...' with escapes when it has characters
// that do not print (bash, zsh and ksh read that form).
func ShellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./+=:,@%") == "" {
		return s
	}
	if printable(s) {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\'' || r == '\\':
			b.WriteString(`\` + string(r))
		case r == utf8.RuneError && size == 1, !unicode.IsGraphic(r) && r != ' ':
			for _, c := range []byte(s[i : i+size]) {
				b.WriteString(`\x` + strconv.FormatUint(uint64(c)>>4, 16) + strconv.FormatUint(uint64(c)&15, 16))
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteString("'")
	return b.String()
}
