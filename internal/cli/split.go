package cli

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// Statement is one statement of a script, as found by Split.
type Statement struct {
	// Text is the statement without its terminating ';', without the
	// blanks and comments before it and without trailing blanks. Positions
	// inside Text (line 1, column 1 is its first character) map to the
	// script with sqlerr.Offset(p, Pos).
	Text string
	// Pos is the 1-based line and column (in characters) of Text's first
	// character in the script.
	Pos sqlerr.Pos
	// Terminated is false for a last statement that has no ';'.
	Terminated bool
}

// Split splits a script into statements on top-level semicolons. Semicolons
// inside '…' strings and `…` identifiers (where a doubled quote stands for
// one quote), -- line comments and /* */ block comments do not split, and
// neither do those inside an EXECUTE (or EXPLAIN) STATEMENT SET BEGIN … END
// block.
// Segments that hold only blanks and comments are skipped.
func Split(src string) []Statement {
	stmts, _ := scan(src)
	return stmts
}

// IsComplete reports whether input ends with a complete statement: it holds
// at least one statement, every statement is terminated by ';', and it does
// not end inside a string, identifier or block comment. The shell uses it to
// decide whether to read another line.
func IsComplete(input string) bool {
	stmts, st := scan(input)
	return len(stmts) > 0 && !st.pending && st.mode == lexCode
}

// The lexical modes of the scanner.
const (
	lexCode         = iota
	lexString       // inside '…'
	lexIdent        // inside `…`
	lexLineComment  // after --
	lexBlockComment // inside /* */
)

// scanState is the scanner state at the end of the input.
type scanState struct {
	mode int
	// pending is true when the input ends with significant text that has
	// not been terminated by ';'.
	pending bool
}

// scanner walks a script one character at a time, tracking lines and
// columns. It is the single lexer behind Split and IsComplete.
type scanner struct {
	src       string
	off       int // byte offset of the next character
	line, col int // position of the next character

	mode  int
	stmts []Statement

	// The current segment.
	start    int        // byte offset of the first significant character, -1 if none yet
	startPos sqlerr.Pos // its position
	end      int        // byte offset just past the last significant character
	words    []string   // the segment's top-level words so far (up to 4), upper case
	block    bool       // the segment is an EXECUTE STATEMENT SET BEGIN block
	caseDeep int        // open CASE … END inside the block
	ended    bool       // the block's END has been seen
}

func scan(src string) ([]Statement, scanState) {
	s := &scanner{src: src, line: 1, col: 1, start: -1}
	for s.off < len(s.src) {
		s.step()
	}
	st := scanState{mode: s.mode}
	if s.mode == lexLineComment {
		st.mode = lexCode // a line comment ends at the end of input
	}
	if s.start >= 0 {
		st.pending = true
		s.emit(false)
	}
	return s.stmts, st
}

// peek returns the character after the current one (0 at the end).
func (s *scanner) peek() byte {
	if s.off+1 < len(s.src) {
		return s.src[s.off+1]
	}
	return 0
}

// advance moves past one character (n bytes) and updates the position.
func (s *scanner) advance(r rune, n int) {
	s.off += n
	if r == '\n' {
		s.line++
		s.col = 1
	} else {
		s.col++
	}
}

// mark records significant text [from, s.off) in the current segment.
func (s *scanner) mark(from int, pos sqlerr.Pos) {
	if s.start < 0 {
		s.start, s.startPos = from, pos
	}
	s.end = s.off
}

func (s *scanner) step() {
	r, n := utf8.DecodeRuneInString(s.src[s.off:])
	from, pos := s.off, sqlerr.Pos{Line: s.line, Col: s.col}
	switch s.mode {
	case lexString, lexIdent:
		quote := byte('\'')
		if s.mode == lexIdent {
			quote = '`'
		}
		if byte(r) == quote {
			if s.peek() == quote { // doubled quote: an escaped quote
				s.advance(r, 1)
			} else {
				s.mode = lexCode
			}
		}
		s.advance(r, n)
		s.mark(from, pos)
	case lexLineComment:
		if r == '\n' {
			s.mode = lexCode
		}
		s.advance(r, n)
	case lexBlockComment:
		if r == '*' && s.peek() == '/' {
			s.advance(r, 1)
			s.mode = lexCode
		}
		s.advance(r, n)
	default:
		s.code(r, n, from, pos)
	}
}

// code handles one character outside strings, identifiers and comments.
func (s *scanner) code(r rune, n, from int, pos sqlerr.Pos) {
	switch {
	case r == '-' && s.peek() == '-':
		s.mode = lexLineComment
		s.advance(r, 1)
		s.advance(r, 1)
	case r == '/' && s.peek() == '*':
		s.mode = lexBlockComment
		s.advance(r, 1)
		s.advance(r, 1)
	case r == '\'':
		s.mode = lexString
		s.advance(r, n)
		s.mark(from, pos)
	case r == '`':
		s.mode = lexIdent
		s.advance(r, n)
		s.mark(from, pos)
	case r == ';' && (!s.block || s.ended):
		s.advance(r, n)
		if s.start >= 0 {
			s.emit(true)
		}
	case isWordChar(r):
		for s.off < len(s.src) {
			r, n = utf8.DecodeRuneInString(s.src[s.off:])
			if !isWordChar(r) {
				break
			}
			s.advance(r, n)
		}
		s.mark(from, pos)
		s.word(strings.ToUpper(s.src[from:s.off]))
	case unicode.IsSpace(r):
		s.advance(r, n)
	default:
		s.advance(r, n)
		s.mark(from, pos)
	}
}

// word tracks the words that open and close a statement-set block, whose
// inner ';' do not end the statement.
func (s *scanner) word(w string) {
	if len(s.words) < 4 {
		s.words = append(s.words, w)
		if w := strings.Join(s.words, " "); w == "EXECUTE STATEMENT SET BEGIN" || w == "EXPLAIN STATEMENT SET BEGIN" {
			s.block = true
		}
		return
	}
	if !s.block {
		return
	}
	switch w {
	case "CASE":
		s.caseDeep++
	case "END":
		if s.caseDeep > 0 {
			s.caseDeep--
		} else {
			s.ended = true
		}
	default:
		s.ended = false
	}
}

// emit closes the current segment as a statement.
func (s *scanner) emit(terminated bool) {
	s.stmts = append(s.stmts, Statement{
		Text:       s.src[s.start:s.end],
		Pos:        s.startPos,
		Terminated: terminated,
	})
	s.start, s.words, s.block, s.caseDeep, s.ended = -1, nil, false, 0, false
}

func isWordChar(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
