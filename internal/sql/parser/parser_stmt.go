package parser

import (
	"github.com/eddy-sql/eddy/internal/sql/ast"
)

// statementKeywords are the words a statement can start with, for errors.
var statementKeywords = []string{
	"SELECT", "VALUES", "INSERT", "CREATE", "DROP", "SET", "RESET", "USE",
	"SHOW", "DESCRIBE", "DESC", "EXPLAIN", "ADD", "ALTER", "EXECUTE", "BEGIN",
}

// statement parses one statement.
func (p *parser) statement() ast.Statement {
	t := p.tok()
	switch {
	case t.is("SELECT"), t.is("VALUES"), t.is("WITH"), t.kind == tLParen:
		return p.query()
	case t.is("INSERT"):
		return p.insert()
	case t.is("CREATE"):
		return p.create()
	case t.is("DROP"):
		return p.drop()
	case t.is("SET"):
		return p.set()
	case t.is("RESET"):
		p.next()
		r := &ast.Reset{Loc: at(t.pos)}
		if p.tok().kind == tString {
			r.Key = p.stringLit("", "")
		}
		return r
	case t.is("USE"):
		return p.use()
	case t.is("SHOW"):
		return p.show()
	case t.is("DESCRIBE"), t.is("DESC"):
		p.next()
		if p.isKw("FUNCTION") && p.peek(1).kind != tEOF && p.peek(1).kind != tSemi {
			p.next()
			d := &ast.DescribeFunction{Loc: at(t.pos), Extended: p.acceptKw("EXTENDED")}
			if w := p.tok(); w.kind == tWord && !isIdent(w) && (p.peek(1).kind == tEOF || p.peek(1).kind == tSemi) {
				// A built-in function whose name is a reserved word
				// (DESCRIBE FUNCTION UPPER), as Flink allows.
				p.next()
				d.Name = &ast.ObjectName{Parts: []*ast.Ident{{Loc: at(w.pos), Name: w.text}}}
			} else {
				d.Name = p.functionName()
			}
			return d
		}
		d := &ast.Describe{Loc: at(t.pos)}
		if p.isKw("EXTENDED") && p.peek(1).kind != tEOF && p.peek(1).kind != tSemi {
			p.next()
			d.Extended = true
		}
		d.Name = p.tableName()
		return d
	case t.is("EXPLAIN"):
		return p.explain()
	case t.is("ADD"):
		p.next()
		p.wantKw("JAR")
		return &ast.AddJar{Loc: at(t.pos), Path: p.stringLit("a JAR path", "write the path as a string: ADD JAR '/path/to/file.jar'")}
	case t.is("EXECUTE") && p.peek(1).is("STATEMENT"):
		return p.statementSet()
	case t.is("EXECUTE") && p.peek(1).is("INSERT"):
		p.next()
		return p.insert()
	case t.is("BEGIN") && p.peek(1).is("STATEMENT"):
		p.next()
		p.next()
		p.wantKw("SET")
		return &ast.BeginStatementSet{Loc: at(t.pos)}
	case t.is("END"):
		p.next()
		return &ast.EndStatementSet{Loc: at(t.pos)}
	case t.is("ALTER") && p.peek(1).is("TABLE"):
		return p.alterTable()
	case t.is("ALTER"), t.is("UPDATE"), t.is("DELETE"), t.is("MERGE"), t.is("TRUNCATE"),
		t.is("EXECUTE"), t.is("BEGIN"), t.is("CALL"), t.is("ANALYZE"), t.is("LOAD"), t.is("UNLOAD"):
		p.unsupported(t.pos, "", "%s statements are not supported", t.val)
	}
	for _, kw := range statementKeywords {
		p.expect(kw)
	}
	p.unexpectedAs("a statement",
		"statements start with SELECT, INSERT, CREATE, DROP, SET, RESET, USE, SHOW, DESCRIBE or EXPLAIN")
	return nil
}

// insert parses INSERT { INTO | OVERWRITE } table [PARTITION (col =
// value, ...)] [(cols)] query.
func (p *parser) insert() *ast.Insert {
	t := p.next()
	ins := &ast.Insert{Loc: at(t.pos)}
	if p.acceptKw("OVERWRITE") {
		ins.Overwrite = true
	} else {
		p.wantKw("INTO")
	}
	ins.Table = p.tableName()
	if p.acceptKw("PARTITION") {
		p.want(tLParen)
		ins.Partition = []*ast.PartitionValue{}
		for {
			pv := &ast.PartitionValue{Name: p.ident("a partition column")}
			p.want(tEq)
			pv.Value = p.expr()
			ins.Partition = append(ins.Partition, pv)
			if !p.accept(tComma) {
				break
			}
		}
		p.want(tRParen)
	} else if !ins.Overwrite {
		p.expect("PARTITION")
	}
	if p.tok().kind == tLParen && !p.isQueryStart(1) {
		ins.Columns = p.parenIdents("a column name")
	}
	if !p.isQueryStart(0) {
		p.expect("SELECT")
		p.expect("VALUES")
		if ins.Columns == nil {
			p.expect("'('")
		}
		p.unexpected()
	}
	ins.Query = p.query()
	if on := p.tok(); on.is("ON") && p.peek(1).is("CONFLICT") {
		p.next()
		p.next()
		p.wantKw("DO")
		switch a := p.tok(); {
		case a.is("NOTHING"):
			ins.OnConflict = ast.ConflictDoNothing
		case a.is("ERROR"):
			ins.OnConflict = ast.ConflictDoError
		case a.is("DEDUPLICATE"):
			ins.OnConflict = ast.ConflictDoDeduplicate
		default:
			p.expect("NOTHING")
			p.expect("ERROR")
			p.expect("DEDUPLICATE")
			p.unexpected()
		}
		p.next()
		ins.OnConflictPos = on.pos
	}
	return ins
}

// set parses SET and SET 'key' = 'value'.
func (p *parser) set() *ast.Set {
	t := p.next()
	s := &ast.Set{Loc: at(t.pos)}
	const hint = "quote the key and the value: SET 'key' = 'value'"
	switch k := p.tok(); k.kind {
	case tString:
	case tWord, tQuoted, tNumber:
		p.fail(k.pos, hint, "unexpected "+k.describe()+", expected a quoted key")
	default:
		p.expect("a quoted key")
		return s
	}
	s.Key = p.stringLit("a quoted key", hint)
	p.want(tEq)
	s.Value = p.stringLit("a quoted value", hint)
	return s
}

// use parses USE CATALOG name and USE [catalog.]database.
func (p *parser) use() ast.Statement {
	t := p.next()
	if p.isKw("CATALOG") && isIdent(p.peek(1)) {
		p.next()
		return &ast.UseCatalog{Loc: at(t.pos), Name: p.ident("a catalog name")}
	}
	p.expect("CATALOG")
	return &ast.UseDatabase{Loc: at(t.pos), Name: p.databaseName()}
}

// show parses the SHOW statements.
func (p *parser) show() ast.Statement {
	t := p.next()
	s := &ast.Show{Loc: at(t.pos)}
	switch {
	case p.acceptKw("CATALOGS"):
		s.What = ast.ShowCatalogs
	case p.acceptKw("DATABASES"):
		s.What = ast.ShowDatabases
	case p.acceptKw("TABLES"):
		s.What = ast.ShowTables
		p.showFilter(s)
	case p.acceptKw("FUNCTIONS"):
		s.What = ast.ShowFunctions
		p.showFilter(s)
	case p.acceptKw("VIEWS"):
		s.What = ast.ShowViews
		p.showFilter(s)
	case p.acceptKw("USER"):
		p.wantKw("FUNCTIONS")
		s.What = ast.ShowUserFunctions
		p.showFilter(s)
	case p.acceptKw("CURRENT"):
		if p.acceptKw("CATALOG") {
			s.What = ast.ShowCurrentCatalog
		} else {
			p.wantKw("DATABASE")
			s.What = ast.ShowCurrentDatabase
		}
	case p.acceptKw("CREATE"):
		p.wantKw("TABLE")
		return &ast.ShowCreateTable{Loc: at(t.pos), Name: p.tableName()}
	default:
		p.unexpected()
	}
	return s
}

// showFilter parses Flink's [FROM | IN [catalog.]database] [[NOT] LIKE
// 'pattern'] of SHOW TABLES, SHOW VIEWS and SHOW [USER] FUNCTIONS.
func (p *parser) showFilter(s *ast.Show) {
	if p.acceptKw("FROM") || p.acceptKw("IN") {
		s.From = p.databaseName()
	}
	if p.isKw("NOT") && p.peek(1).is("LIKE") {
		p.next()
		s.NotLike = true
	}
	if p.acceptKw("LIKE") {
		s.Like = p.stringLit("a LIKE pattern", "write the pattern as a string: SHOW TABLES LIKE 'order%'")
	}
}

// explainDetails are the detail keywords of EXPLAIN.
var explainDetails = []string{"ESTIMATED_COST", "CHANGELOG_MODE", "JSON_EXECUTION_PLAN", "PLAN_ADVICE"}

func isExplainDetail(t token) bool {
	for _, d := range explainDetails {
		if t.is(d) {
			return true
		}
	}
	return false
}

// explain parses EXPLAIN [PLAN FOR | detail, ...] statement.
func (p *parser) explain() *ast.Explain {
	t := p.next()
	e := &ast.Explain{Loc: at(t.pos)}
	switch {
	case p.isKw("PLAN") && p.peek(1).is("FOR"):
		p.next()
		p.next()
	case isExplainDetail(p.tok()):
		for {
			d := p.tok()
			if !isExplainDetail(d) {
				for _, x := range explainDetails {
					p.expect(x)
				}
				p.unexpected()
			}
			p.next()
			e.Details = append(e.Details, d.val)
			if !p.accept(tComma) {
				break
			}
		}
	default:
		p.expect("PLAN FOR")
		for _, x := range explainDetails {
			p.expect(x)
		}
	}
	s := p.tok()
	switch {
	case p.isQueryStart(0):
		e.Statement = p.query()
	case s.is("INSERT"):
		e.Statement = p.insert()
	case s.is("STATEMENT"), s.is("EXECUTE") && p.peek(1).is("STATEMENT"):
		e.Statement = p.statementSet()
	case s.is("EXECUTE") && p.peek(1).is("INSERT"):
		p.next()
		e.Statement = p.insert()
	case s.is("CREATE") && (p.peek(1).is("TABLE") || p.peek(1).is("TEMPORARY")):
		e.Statement = p.create()
		if _, ok := e.Statement.(*ast.CreateTable); !ok {
			p.fail(s.pos, "", "EXPLAIN supports queries, INSERT and CREATE TABLE statements")
		}
	default:
		p.expect("SELECT")
		p.expect("INSERT")
		p.expect("CREATE TABLE")
		p.unexpected()
	}
	return e
}
