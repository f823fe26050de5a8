package parser

import (
	"strings"
	"unicode/utf8"

	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// hints parses the query hints right after the SELECT keyword kw:
// /*+ NAME(options) [, NAME(options)] */, a block comment that starts with
// '+' (the scanner skips it as a comment; the parser reads it back from the
// source). Options are 'key' = 'value' pairs, or keys alone.
func (p *parser) hints(kw token) []*ast.Hint {
	next := p.tok()
	gap := p.sc.src[kw.end:next.off]
	i := strings.Index(gap, "/*+")
	if i < 0 || strings.TrimSpace(gap[:i]) != "" {
		return nil
	}
	end := strings.Index(gap[i:], "*/")
	if end < 0 {
		return nil // the scanner reports the unterminated comment
	}
	h := &hintParser{src: p.sc.src, off: kw.end + i + 3, stop: kw.end + i + end, base: kw}
	out, err := h.parse()
	if err != nil {
		panic(bailout{err})
	}
	return out
}

// hintParser reads the text of a hint comment.
type hintParser struct {
	src       string
	off, stop int
	base      token // a token before the hint, for positions
}

// pos returns the line and column of byte offset off.
func (h *hintParser) pos(off int) sqlerr.Pos {
	p := h.base.pos
	for i := h.base.off; i < off && i < len(h.src); {
		r, n := utf8.DecodeRuneInString(h.src[i:])
		if r == '\n' {
			p.Line++
			p.Col = 1
		} else {
			p.Col++
		}
		i += n
	}
	return p
}

func (h *hintParser) fail(msg string) *sqlerr.Error {
	return &sqlerr.Error{Code: sqlerr.Syntax, Message: msg, Pos: h.pos(h.off),
		Hint: "write hints as /*+ STATE_TTL('table' = '1d') */ right after SELECT"}
}

func (h *hintParser) ws() {
	for h.off < h.stop && strings.ContainsRune(" \t\r\n", rune(h.src[h.off])) {
		h.off++
	}
}

func (h *hintParser) word() string {
	start := h.off
	for h.off < h.stop {
		c := h.src[h.off]
		if c == '_' || c == '$' || isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			h.off++
			continue
		}
		break
	}
	return h.src[start:h.off]
}

// str reads 'text' (” stands for ').
func (h *hintParser) str() (string, bool) {
	if h.off >= h.stop || h.src[h.off] != '\'' {
		return "", false
	}
	h.off++
	var b strings.Builder
	for h.off < h.stop {
		c := h.src[h.off]
		h.off++
		if c == '\'' {
			if h.off < h.stop && h.src[h.off] == '\'' {
				b.WriteByte('\'')
				h.off++
				continue
			}
			return b.String(), true
		}
		b.WriteByte(c)
	}
	return "", false
}

func (h *hintParser) key() (string, bool) {
	if s, ok := h.str(); ok {
		return s, true
	}
	w := h.word()
	return w, w != ""
}

func (h *hintParser) parse() ([]*ast.Hint, *sqlerr.Error) {
	var out []*ast.Hint
	for {
		h.ws()
		start := h.off
		name := h.word()
		if name == "" {
			return nil, h.fail("expected a hint name")
		}
		hint := &ast.Hint{Loc: ast.Loc{Start: h.pos(start)}, Name: strings.ToUpper(name)}
		h.ws()
		if h.off < h.stop && h.src[h.off] == '(' {
			h.off++
			for {
				h.ws()
				if h.off < h.stop && h.src[h.off] == ')' && len(hint.Options) == 0 {
					break
				}
				ostart := h.off
				k, ok := h.key()
				if !ok {
					return nil, h.fail("expected a hint option: 'key' = 'value'")
				}
				o := &ast.HintOption{Loc: ast.Loc{Start: h.pos(ostart)}, Key: k}
				h.ws()
				if h.off < h.stop && h.src[h.off] == '=' {
					h.off++
					h.ws()
					if o.Value, ok = h.str(); !ok {
						return nil, h.fail("expected a quoted hint option value")
					}
					h.ws()
				}
				hint.Options = append(hint.Options, o)
				if h.off < h.stop && h.src[h.off] == ',' {
					h.off++
					continue
				}
				break
			}
			if h.off >= h.stop || h.src[h.off] != ')' {
				return nil, h.fail("expected ')' after the hint options")
			}
			h.off++
		}
		out = append(out, hint)
		h.ws()
		if h.off < h.stop && h.src[h.off] == ',' {
			h.off++
			continue
		}
		if h.off < h.stop {
			return nil, h.fail("unexpected text in the hint")
		}
		return out, nil
	}
}
