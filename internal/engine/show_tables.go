package engine

import (
	"regexp"
	"strings"

	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/sql/ast"
)

// showTables is SHOW TABLES and SHOW VIEWS with Flink's [FROM | IN
// [catalog.]database] [[NOT] LIKE 'pattern']: the tables (or views) of the
// current database, or of the one named, whose names match the pattern.
func (e *Engine) showTables(s *ast.Show) (*cli.Result, error) {
	cat, db := e.sess.Catalog, e.sess.Database
	if s.From != nil {
		parts := s.From.Names()
		db = parts[len(parts)-1]
		if len(parts) == 2 {
			cat = parts[0]
		}
		if err := e.checkDatabase(cat, db, s.From.Pos()); err != nil {
			return nil, err
		}
	}
	var like *regexp.Regexp
	if s.Like != nil {
		like = likePattern(s.Like.Value)
	}
	var names []string
	for _, n := range e.cat.Tables(cat, db) {
		t, found := e.cat.Table(cat, db, n)
		if !found || (s.What == ast.ShowViews && t.View == "") { // SHOW TABLES lists views too, as Flink
			continue
		}
		if like != nil && like.MatchString(n) == s.NotLike {
			continue
		}
		names = append(names, n)
	}
	if s.What == ast.ShowViews {
		return column("view name", names), nil
	}
	return column("table name", names), nil
}

// likePattern compiles a SQL LIKE pattern ('%' any run, '_' one character,
// '\' escapes), matched case-sensitively as Flink's SHOW ... LIKE.
func likePattern(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^(?s:")
	escaped := false
	for _, c := range p {
		switch {
		case escaped:
			b.WriteString(regexp.QuoteMeta(string(c)))
			escaped = false
		case c == '\\':
			escaped = true
		case c == '%':
			b.WriteString(".*")
		case c == '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(")$")
	return regexp.MustCompile(b.String())
}
