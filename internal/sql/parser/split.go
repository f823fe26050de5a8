package parser

import (
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// Segment is the text of one statement of a script, as cut by Split.
type Segment struct {
	// Text is the statement without the terminating ';' and without
	// surrounding white space and comments.
	Text string
	// Pos is the line and column of Text's first character in the script.
	// Use sqlerr.Offset to map positions within Text to the script.
	Pos sqlerr.Pos
}

// Split cuts a script into statements at every ';' that is outside string
// literals, quoted identifiers and comments. Segments that contain only
// white space and comments are dropped. Split never fails: an unterminated
// string, identifier or comment runs to the end of the script, where the
// parser will report it.
func Split(src string) []Segment {
	s := newScanner(src)
	var segs []Segment
	start, end := -1, -1 // byte offsets of the current segment's text
	var startPos sqlerr.Pos
	flush := func() {
		if start >= 0 {
			segs = append(segs, Segment{Text: src[start:end], Pos: startPos})
		}
		start, end = -1, -1
	}
	for {
		if t, ok := s.skip(); ok {
			// An unterminated block comment runs to the end; keep it so
			// that the parser reports it.
			if start < 0 {
				start, startPos = t.off, t.pos
			}
			end = len(src)
			break
		}
		c := s.peekByte(0)
		if s.off >= len(src) {
			break
		}
		if c == ';' {
			s.advance()
			flush()
			continue
		}
		if start < 0 {
			start, startPos = s.off, s.pos()
		}
		switch c {
		case '\'', '`':
			s.skipQuoted(c)
		default:
			s.advance()
		}
		end = s.off
	}
	flush()
	return segs
}

// skipQuoted moves past a quoted string or identifier, or to the end of the
// source when it is not terminated.
func (s *scanner) skipQuoted(q byte) {
	s.advance()
	for s.off < len(s.src) {
		if s.peekByte(0) == q {
			s.advance()
			if s.peekByte(0) != q {
				return
			}
		}
		s.advance()
	}
}
