package parser

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// scanner produces tokens from SQL text on demand.
type scanner struct {
	src  string
	off  int
	line int
	col  int
}

func newScanner(src string) *scanner {
	return &scanner{src: src, line: 1, col: 1}
}

func (s *scanner) pos() sqlerr.Pos { return sqlerr.Pos{Line: s.line, Col: s.col} }

// peekRune returns the rune at byte offset off (relative to s.off) and its
// size, or (-1, 0) at the end.
func (s *scanner) peekRune(ahead int) (rune, int) {
	if s.off+ahead >= len(s.src) {
		return -1, 0
	}
	return utf8.DecodeRuneInString(s.src[s.off+ahead:])
}

func (s *scanner) peekByte(ahead int) byte {
	if s.off+ahead >= len(s.src) {
		return 0
	}
	return s.src[s.off+ahead]
}

// advance moves past one rune, tracking line and column.
func (s *scanner) advance() {
	r, n := s.peekRune(0)
	if n == 0 {
		return
	}
	s.off += n
	if r == '\n' {
		s.line++
		s.col = 1
	} else {
		s.col++
	}
}

func isIdentStart(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r)
}

func isIdentPart(r rune) bool {
	return isIdentStart(r) || unicode.IsDigit(r)
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// skip skips white space and comments. It returns an illegal token for an
// unterminated block comment.
func (s *scanner) skip() (token, bool) {
	for {
		r, _ := s.peekRune(0)
		switch {
		case r == -1:
			return token{}, false
		case unicode.IsSpace(r):
			s.advance()
		case r == '-' && s.peekByte(1) == '-':
			for r, _ := s.peekRune(0); r != -1 && r != '\n'; r, _ = s.peekRune(0) {
				s.advance()
			}
		case r == '/' && s.peekByte(1) == '*':
			start, off := s.pos(), s.off
			s.advance()
			s.advance()
			for {
				if s.off >= len(s.src) {
					return token{kind: tIllegal, pos: start, off: off, end: s.off, text: "/*",
						val:  "unterminated comment",
						hint: "close the comment with */"}, true
				}
				if s.peekByte(0) == '*' && s.peekByte(1) == '/' {
					s.advance()
					s.advance()
					break
				}
				s.advance()
			}
		default:
			return token{}, false
		}
	}
}

// next returns the next token. At the end it returns tEOF forever.
func (s *scanner) next() token {
	if t, ok := s.skip(); ok {
		return t
	}
	start, off := s.pos(), s.off
	tok := func(k tokKind) token {
		return token{kind: k, pos: start, off: off, end: s.off, text: s.src[off:s.off]}
	}
	r, _ := s.peekRune(0)
	switch {
	case r == -1:
		return tok(tEOF)
	case isIdentStart(r):
		for r, _ := s.peekRune(0); r != -1 && isIdentPart(r); r, _ = s.peekRune(0) {
			s.advance()
		}
		t := tok(tWord)
		t.val = asciiUpper(t.text)
		return t
	case r == '`':
		return s.quoted(start, off, '`', tQuoted)
	case r == '\'':
		return s.quoted(start, off, '\'', tString)
	case r < utf8.RuneSelf && (isDigit(byte(r)) || r == '.' && isDigit(s.peekByte(1))):
		return s.number(start, off)
	}
	s.advance()
	two := func(next byte, k2, k1 tokKind) token {
		if s.peekByte(0) == next {
			s.advance()
			return tok(k2)
		}
		return tok(k1)
	}
	switch r {
	case '(':
		return tok(tLParen)
	case ')':
		return tok(tRParen)
	case '[':
		return tok(tLBrack)
	case ']':
		return tok(tRBrack)
	case ',':
		return tok(tComma)
	case '.':
		return tok(tDot)
	case ';':
		return tok(tSemi)
	case '*':
		return tok(tStar)
	case '+':
		return tok(tPlus)
	case '-':
		return tok(tMinus)
	case '/':
		return tok(tSlash)
	case '%':
		return tok(tPercent)
	case '=':
		return two('>', tArrow, tEq)
	case '>':
		return two('=', tGe, tGt)
	case '<':
		switch s.peekByte(0) {
		case '=':
			s.advance()
			return tok(tLe)
		case '>':
			s.advance()
			return tok(tNe)
		}
		return tok(tLt)
	case '!':
		if s.peekByte(0) == '=' {
			s.advance()
			return tok(tNe)
		}
	case '|':
		if s.peekByte(0) == '|' {
			s.advance()
			return tok(tConcat)
		}
	}
	t := tok(tIllegal)
	t.val = "unexpected character " + quoteChar(r)
	switch r {
	case '"':
		t.hint = "write strings in single quotes ('text') and quote names with backticks (`name`)"
	case '!':
		t.hint = "write != or <> for 'not equal', and NOT for negation"
	case '|':
		t.hint = "write || to concatenate strings, and OR for logical or"
	}
	return t
}

func quoteChar(r rune) string {
	if unicode.IsPrint(r) {
		return "'" + string(r) + "'"
	}
	return fmt.Sprintf("U+%04X", r)
}

// quoted scans a string ('...') or quoted identifier (`...`), in which the
// quote character is escaped by doubling it.
func (s *scanner) quoted(start sqlerr.Pos, off int, q byte, kind tokKind) token {
	s.advance()
	var b strings.Builder
	for {
		if s.off >= len(s.src) {
			t := token{kind: tIllegal, pos: start, off: off, end: s.off, text: s.src[off:s.off]}
			if kind == tString {
				t.val = "unterminated string literal"
				t.hint = "close the string with ' (write '' for a quote inside a string)"
			} else {
				t.val = "unterminated quoted identifier"
				t.hint = "close the name with ` (write `` for a backtick inside a name)"
			}
			return t
		}
		c := s.peekByte(0)
		if c == q {
			s.advance()
			if s.peekByte(0) == q {
				s.advance()
				b.WriteByte(q)
				continue
			}
			break
		}
		_, n := s.peekRune(0)
		b.WriteString(s.src[s.off : s.off+n])
		s.advance()
	}
	t := token{kind: kind, pos: start, off: off, end: s.off, text: s.src[off:s.off], val: b.String()}
	if kind == tQuoted && t.val == "" {
		t.kind = tIllegal
		t.val = "empty quoted identifier"
		t.hint = "a name needs at least one character between the backticks"
	}
	return t
}

// number scans 12, 1.5, 1., .5, 1e3, 1.5E-3.
func (s *scanner) number(start sqlerr.Pos, off int) token {
	digits := func() int {
		n := 0
		for isDigit(s.peekByte(0)) {
			s.advance()
			n++
		}
		return n
	}
	digits()
	if s.peekByte(0) == '.' {
		s.advance()
		digits()
	}
	bad := func(msg string) token {
		for r, _ := s.peekRune(0); r != -1 && (isIdentPart(r) || r == '.'); r, _ = s.peekRune(0) {
			s.advance()
		}
		return token{kind: tIllegal, pos: start, off: off, end: s.off, text: s.src[off:s.off], val: msg}
	}
	if c := s.peekByte(0); c == 'e' || c == 'E' {
		s.advance()
		if c := s.peekByte(0); c == '+' || c == '-' {
			s.advance()
		}
		if digits() == 0 {
			return bad("invalid number " + quoteText(s.src[off:s.off]) + ": the exponent has no digits")
		}
	}
	if r, _ := s.peekRune(0); r != -1 && (isIdentPart(r) || r == '.') {
		t := bad("")
		t.val = "invalid number " + quoteText(t.text)
		t.hint = "separate a number from a following name with a space"
		return t
	}
	return token{kind: tNumber, pos: start, off: off, end: s.off, text: s.src[off:s.off]}
}

func quoteText(s string) string { return "'" + shorten(s) + "'" }

// asciiUpper upper-cases ASCII letters only, so that no non-ASCII word
// (such as one with a long s) ever matches a keyword.
func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
