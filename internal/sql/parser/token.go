package parser

import (
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// tokKind is the kind of a token.
type tokKind uint8

const (
	tEOF     tokKind = iota
	tIllegal         // a lexical error; val is the message, hint the hint
	tWord            // unquoted identifier or keyword; val is upper case
	tQuoted          // `quoted identifier`; val is the name
	tString          // 'string'; val is the content
	tNumber          // 12, 1.5, .5, 1e3
	tLParen
	tRParen
	tLBrack
	tRBrack
	tComma
	tDot
	tSemi
	tStar
	tPlus
	tMinus
	tSlash
	tPercent
	tConcat // ||
	tEq
	tNe // <> or !=
	tLt
	tLe
	tGt
	tGe
	tArrow // =>
)

// token is one lexical token.
type token struct {
	kind tokKind
	pos  sqlerr.Pos
	// off and end are byte offsets of the token in the source.
	off, end int
	// text is the token exactly as written.
	text string
	// val depends on kind; see tokKind.
	val  string
	hint string
}

// is reports whether t is the unquoted keyword kw (upper case).
func (t token) is(kw string) bool { return t.kind == tWord && t.val == kw }

// describe renders t for an error message.
func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tString:
		return "string " + shorten(t.text)
	}
	return "'" + shorten(t.text) + "'"
}

func shorten(s string) string {
	r := []rune(s)
	if len(r) > 40 {
		return string(r[:37]) + "..."
	}
	return s
}

// punct is the display text of each punctuation kind, for "expected"
// lists.
var punct = map[tokKind]string{
	tLParen: "'('", tRParen: "')'", tLBrack: "'['", tRBrack: "']'",
	tComma: "','", tDot: "'.'", tSemi: "';'", tStar: "'*'", tEq: "'='",
	tArrow: "'=>'", tLt: "'<'", tGt: "'>'",
}
