package parser

import (
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// ParseScript parses a script of statements separated by ';'. Empty
// statements are skipped. Positions are relative to src. On error it
// returns a *sqlerr.Error for the first problem and no statements.
func ParseScript(src string) ([]ast.Statement, error) {
	var stmts []ast.Statement
	err := run(src, func(p *parser) {
		for {
			for p.accept(tSemi) {
			}
			if p.tok().kind == tEOF {
				return
			}
			stmts = append(stmts, p.statement())
			p.endOfStatement()
		}
	})
	if err != nil {
		return nil, err
	}
	return stmts, nil
}

// ParseStatement parses exactly one statement, optionally followed by ';'.
// Positions are relative to src. Errors are *sqlerr.Error.
func ParseStatement(src string) (ast.Statement, error) {
	var stmt ast.Statement
	err := run(src, func(p *parser) {
		for p.accept(tSemi) {
		}
		stmt = p.statement()
		for p.accept(tSemi) {
		}
		if t := p.tok(); t.kind != tEOF {
			p.failf(t.pos, "only one statement is allowed here; split the script at ';' first",
				"unexpected %s after the end of the statement", t.describe())
		}
	})
	if err != nil {
		return nil, err
	}
	return stmt, nil
}

// maxDepth bounds the nesting of expressions and queries, so that
// adversarial input cannot exhaust the stack.
const maxDepth = 500

// parser is the state of one parse. Errors abort the parse by panicking
// with a bailout, recovered in run (the go/parser idiom).
type parser struct {
	sc *scanner
	// toks is the lookahead buffer; toks[0] is the current token.
	toks []token
	// expected lists what the parser looked for at the token at expOff.
	expected []string
	expOff   int
	depth    int
	// lastEnd is the byte offset just past the last consumed token.
	lastEnd int
}

type bailout struct{ err *sqlerr.Error }

func run(src string, f func(*parser)) (err error) {
	p := &parser{sc: newScanner(src), expOff: -1}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			err = b.err
		}
	}()
	f(p)
	return nil
}

// peek returns the i-th token ahead; peek(0) is the current token.
func (p *parser) peek(i int) token {
	for len(p.toks) <= i {
		p.toks = append(p.toks, p.sc.next())
	}
	return p.toks[i]
}

// tok returns the current token, failing on a lexical error.
func (p *parser) tok() token {
	t := p.peek(0)
	if t.kind == tIllegal {
		p.fail(t.pos, t.hint, t.val)
	}
	return t
}

// next consumes and returns the current token.
func (p *parser) next() token {
	t := p.tok()
	if t.kind != tEOF {
		p.toks = p.toks[1:]
		p.lastEnd = t.end
	}
	return t
}

// enter and leave bound the recursion depth.
func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.fail(p.tok().pos, "simplify the statement", "statement is nested too deeply")
	}
}

func (p *parser) leave() { p.depth-- }

// expect records that desc would have been accepted at the current token.
func (p *parser) expect(desc string) {
	t := p.peek(0)
	if t.off != p.expOff {
		p.expected = p.expected[:0]
		p.expOff = t.off
	}
	for _, e := range p.expected {
		if e == desc {
			return
		}
	}
	p.expected = append(p.expected, desc)
}

// isKw reports whether the current token is the keyword kw.
func (p *parser) isKw(kw string) bool { return p.tok().is(kw) }

// acceptKw consumes the keyword kw if it is the current token.
func (p *parser) acceptKw(kw string) bool {
	if p.isKw(kw) {
		p.next()
		return true
	}
	p.expect(kw)
	return false
}

// wantKw consumes the keyword kw or fails.
func (p *parser) wantKw(kw string) token {
	t := p.tok()
	if !p.acceptKw(kw) {
		p.unexpected()
	}
	return t
}

// accept consumes a token of kind k if it is the current token.
func (p *parser) accept(k tokKind) bool {
	if p.tok().kind == k {
		p.next()
		return true
	}
	if d, ok := punct[k]; ok {
		p.expect(d)
	}
	return false
}

// want consumes a token of kind k or fails.
func (p *parser) want(k tokKind) token {
	t := p.tok()
	if !p.accept(k) {
		p.unexpected()
	}
	return t
}

// endOfStatement checks that a statement ends at the current token.
func (p *parser) endOfStatement() {
	switch p.tok().kind {
	case tSemi, tEOF:
		return
	}
	p.expect("';'")
	p.expect("end of input")
	p.unexpected()
}

// fail aborts the parse with a syntax error at pos.
func (p *parser) fail(pos sqlerr.Pos, hint, msg string) {
	panic(bailout{&sqlerr.Error{Code: sqlerr.Syntax, Message: msg, Pos: pos, Hint: hint}})
}

// failf is fail with a formatted message.
func (p *parser) failf(pos sqlerr.Pos, hint, format string, args ...any) {
	p.fail(pos, hint, fmt.Sprintf(format, args...))
}

// unsupported aborts the parse with an Unsupported error at pos.
func (p *parser) unsupported(pos sqlerr.Pos, hint, format string, args ...any) {
	panic(bailout{&sqlerr.Error{Code: sqlerr.Unsupported, Message: fmt.Sprintf(format, args...), Pos: pos, Hint: hint}})
}

// unexpected fails at the current token, listing what was expected there.
func (p *parser) unexpected() { p.unexpectedAs("", "") }

// unexpectedAs fails at the current token. If the token looks like a typo
// of an expected keyword, the message names that keyword; otherwise it
// says summary was expected (or lists the alternatives when summary is
// empty) and gives hint.
func (p *parser) unexpectedAs(summary, hint string) {
	t := p.tok()
	var exp []string
	if t.off == p.expOff {
		exp = p.expected
	}
	msg := "unexpected " + t.describe()
	if t.kind == tWord {
		if s := suggest(t.val, exp); s != "" {
			p.failf(t.pos, "did you mean "+firstWord(s)+"?", "%s, expected %s", msg, s)
		}
		if ast.IsReserved(t.val) && (wantsName(exp) || strings.HasSuffix(summary, "name")) {
			hint = fmt.Sprintf("%s is a reserved word; to use it as a name, quote it with backticks: %s",
				t.val, "`"+strings.ReplaceAll(t.text, "`", "``")+"`")
		}
	}
	switch {
	case summary != "":
		msg += ", expected " + summary
	case len(exp) > 0 && len(exp) <= 10:
		msg += ", expected " + orList(exp)
	}
	p.fail(t.pos, hint, msg)
}

// wantsName reports whether a name (identifier) was among the expected
// alternatives.
func wantsName(exp []string) bool {
	for _, e := range exp {
		if strings.HasSuffix(e, "name") || e == "an expression" || e == "an alias" {
			return true
		}
	}
	return false
}

func orList(items []string) string {
	switch len(items) {
	case 1:
		return items[0]
	case 2:
		return items[0] + " or " + items[1]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

func firstWord(s string) string {
	if i := strings.IndexByte(s, ' '); i > 0 {
		return s[:i]
	}
	return s
}

// suggest returns the expected keyword (alternative made of upper-case
// words) that word is most likely a typo of, or "".
func suggest(word string, expected []string) string {
	best, bestDist := "", 3
	for _, e := range expected {
		kw := firstWord(e)
		if kw == "" || kw != strings.ToUpper(kw) || !isKeywordText(kw) || kw == word {
			continue
		}
		d := editDistance(word, kw)
		if d < bestDist && d <= typoBudget(kw) {
			best, bestDist = e, d
		}
	}
	return best
}

func isKeywordText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c == '_' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// typoBudget is how many edits a misspelling of kw may contain.
func typoBudget(kw string) int {
	switch {
	case len(kw) >= 7:
		return 2
	case len(kw) >= 4:
		return 1
	}
	return 0
}

// editDistance is the optimal-string-alignment distance between a and b
// (insertions, deletions, substitutions and adjacent transpositions).
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
