//go:build duckdb

package engine_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// This file holds the random data and query generator of the differential
// test (differential_test.go). Every query it writes is valid, with the same
// meaning, in Eddy's Flink dialect and in DuckDB's: it never divides
// (integer division differs), casts NULL and DOUBLE literals to their type
// (an untyped NULL and a DECIMAL literal would type differently), keeps
// values small so that no INT arithmetic overflows, and gives every
// selected column a name (c0, c1, ...), so that subqueries and set
// operations line up.

// typ is the type of a generated column or expression.
type typ int

const (
	tInt typ = iota // INT
	tBig            // BIGINT
	tStr            // STRING
	tDbl            // DOUBLE
)

func (t typ) sql() string {
	return [...]string{"INT", "BIGINT", "STRING", "DOUBLE"}[t]
}

// numeric reports whether t is INT or BIGINT: the types that compare with
// each other and mix in arithmetic.
func (t typ) numeric() bool { return t == tInt || t == tBig }

// col is a column visible in a scope: a qualified reference and its type.
type col struct {
	ref string
	t   typ
}

// table is a base table or a common table expression of the generator.
type table struct {
	name string
	cols []string
	typs []typ
	// reads are the base tables a CTE reads.
	reads []string
	// upsert tables have a primary key on their first column (never NULL):
	// Eddy gets several rows per key, each replacing the one before, and
	// DuckDB only the last one of each key.
	upsert bool
}

// diffTables are the base tables of the test: three shapes, two tables of
// each with different data.
//
// Queries may read a table more than once (self joins, a union of a table
// with itself): the source reads its log once for all inputs.
var diffTables = []table{
	{name: "t1", cols: []string{"a", "b", "s", "d"}, typs: []typ{tInt, tBig, tStr, tDbl}},
	{name: "t2", cols: []string{"a", "b", "s"}, typs: []typ{tInt, tBig, tStr}},
	{name: "t3", cols: []string{"k", "s", "n"}, typs: []typ{tBig, tStr, tInt}},
	{name: "t4", cols: []string{"a", "b", "s", "d"}, typs: []typ{tInt, tBig, tStr, tDbl}},
	{name: "t5", cols: []string{"a", "b", "s"}, typs: []typ{tInt, tBig, tStr}},
	{name: "t6", cols: []string{"k", "s", "n"}, typs: []typ{tBig, tStr, tInt}},
	{name: "u1", cols: []string{"k", "s", "n"}, typs: []typ{tBig, tStr, tInt}, upsert: true},
	{name: "u2", cols: []string{"k", "a", "s"}, typs: []typ{tBig, tInt, tStr}, upsert: true},
}

// setup returns the statements that create and fill tb in Eddy and in
// DuckDB: 20 to 200 random rows with small value domains (so joins match
// and rows repeat) and about 15% NULLs.
func setup(r *rand.Rand, tb table) (eddy, duck []string) {
	var cols []string
	for i, c := range tb.cols {
		cols = append(cols, c+" "+tb.typs[i].sql())
	}
	create := fmt.Sprintf("CREATE TABLE %s (%s)", tb.name, strings.Join(cols, ", "))
	duck = append(duck, create)
	if tb.upsert {
		cols[0] += " PRIMARY KEY NOT ENFORCED"
		create = fmt.Sprintf("CREATE TABLE %s (%s)", tb.name, strings.Join(cols, ", "))
	}
	eddy = append(eddy, create)
	var rows []string
	last := map[string]int{} // key -> index of its last row (upsert)
	for range 20 + r.IntN(181) {
		vals := make([]string, len(tb.typs))
		for j, t := range tb.typs {
			if r.IntN(100) < 15 && !(tb.upsert && j == 0) {
				vals[j] = "NULL"
				continue
			}
			vals[j] = dataValue(r, t)
		}
		if tb.upsert {
			vals[0] = fmt.Sprint(r.IntN(30))
			last[vals[0]] = len(rows)
		}
		rows = append(rows, "("+strings.Join(vals, ", ")+")")
	}
	insert := func(rows []string) string {
		return fmt.Sprintf("INSERT INTO %s VALUES %s", tb.name, strings.Join(rows, ", "))
	}
	if !tb.upsert {
		return append(eddy, insert(rows)), append(duck, insert(rows))
	}
	// Eddy gets the rows in three statements, so that updates arrive
	// after the first results.
	for i := 0; i < len(rows); i += len(rows)/3 + 1 {
		eddy = append(eddy, insert(rows[i:min(i+len(rows)/3+1, len(rows))]))
	}
	var final []string
	for i, row := range rows {
		if last[strings.TrimPrefix(strings.SplitN(row, ",", 2)[0], "(")] == i {
			final = append(final, row)
		}
	}
	return eddy, append(duck, insert(final))
}

var diffStrings = []string{"a", "b", "c", "d", "ab", "B"}

func dataValue(r *rand.Rand, t typ) string {
	switch t {
	case tInt:
		return fmt.Sprint(r.IntN(10) - 3)
	case tBig:
		return fmt.Sprint(r.IntN(9))
	case tStr:
		return "'" + diffStrings[r.IntN(len(diffStrings))] + "'"
	default:
		// Quarters add up exactly in binary floating point.
		return fmt.Sprintf("CAST(%g AS DOUBLE)", float64(r.IntN(17)-4)/4)
	}
}

// diffFeatures are the optional query shapes of the generator, each with a
// query that tells whether Eddy runs it yet: they need the aggregate
// operator.
var diffFeatures = map[string]string{
	"DISTINCT":  "SELECT DISTINCT a FROM t1",
	"GROUP BY":  "SELECT a, COUNT(*) FROM t1 GROUP BY a",
	"UNION":     "SELECT a FROM t1 UNION SELECT a FROM t2",
	"INTERSECT": "SELECT a FROM t1 INTERSECT SELECT a FROM t2",
	"EXCEPT":    "SELECT a FROM t1 EXCEPT SELECT a FROM t2",
	// The multiset forms and NOT IN over nullable columns.
	"INTERSECT ALL": "SELECT a FROM t1 INTERSECT ALL SELECT a FROM t2",
	"EXCEPT ALL":    "SELECT a FROM t1 EXCEPT ALL SELECT a FROM t2",
	"NOT IN":        "SELECT a FROM t1 WHERE a NOT IN (SELECT a FROM t2)",
}

// gen writes one random query.
type gen struct {
	r       *rand.Rand
	aliases int
	ctes    []table
	// has holds the optional query shapes Eddy runs (see diffFeatures).
	has map[string]bool
	// nested is set while a CTE or a FROM subquery is written: no
	// INTERSECT ALL / EXCEPT ALL there, whose replicated rows a self-join
	// of a CTE would multiply into minutes of changes.
	nested bool
	// used holds the base tables the query reads so far; out is set when
	// a FROM found none left.
	used map[string]bool
	out  bool
}

// statement writes a random statement that reads no table twice, trying
// again with the same random source when one ran out of tables.
func (g *gen) statement() string {
	for {
		g.aliases, g.ctes, g.used, g.out = 0, nil, map[string]bool{}, false
		if q := g.top(); !g.out {
			return q
		}
	}
}

func (g *gen) alias(prefix string) string {
	g.aliases++
	return fmt.Sprintf("%s%d", prefix, g.aliases)
}

func (g *gen) chance(pct int) bool { return g.r.IntN(100) < pct }

func pick[T any](g *gen, xs []T) T { return xs[g.r.IntN(len(xs))] }

// query writes a query returning columns of the types sig (random types if
// sig is nil) and returns it with its column types.
func (g *gen) query(sig []typ, depth int) (string, []typ) {
	if sig == nil {
		sig = g.signature()
	}
	if depth > 0 && g.chance(20) {
		return g.setOp(sig, depth), sig
	}
	return g.selectStmt(sig, depth), sig
}

// top writes a whole statement: a query, sometimes with a WITH clause.
func (g *gen) top() string {
	var with string
	if g.chance(15) {
		name := g.alias("w")
		g.nested = true
		q, sig := g.query(nil, 1)
		g.nested = false
		cols := make([]string, len(sig))
		for i := range sig {
			cols[i] = fmt.Sprintf("c%d", i)
		}
		var reads []string
		for tb := range g.used {
			reads = append(reads, tb)
		}
		// The CTE reads its tables where the query names it.
		g.used = map[string]bool{}
		g.ctes = append(g.ctes, table{name: name, cols: cols, typs: sig, reads: reads})
		with = fmt.Sprintf("WITH %s AS (%s) ", name, q)
	}
	q, _ := g.query(nil, 2)
	return with + q
}

func (g *gen) signature() []typ {
	n := 1 + g.r.IntN(4)
	sig := make([]typ, n)
	for i := range sig {
		// DOUBLE results are rarer: they only ever hold exact quarters.
		sig[i] = pick(g, []typ{tInt, tInt, tBig, tBig, tStr, tStr, tDbl})
	}
	return sig
}

func (g *gen) setOp(sig []typ, depth int) string {
	ops := []string{"UNION ALL", "UNION ALL"}
	for _, op := range []string{"UNION", "INTERSECT", "EXCEPT", "INTERSECT ALL", "EXCEPT ALL"} {
		if g.has[op] && !(g.nested && strings.HasSuffix(op, " ALL")) {
			ops = append(ops, op)
		}
	}
	op := pick(g, ops)
	left := g.selectStmt(sig, depth-1)
	right, _ := g.query(sig, depth-1)
	if strings.Contains(right, " UNION ") || strings.Contains(right, " INTERSECT ") || strings.Contains(right, " EXCEPT ") {
		// Set operations bind differently (INTERSECT first); keep the
		// nesting explicit.
		right = fmt.Sprintf("SELECT * FROM (%s) AS %s", right, g.alias("u"))
	}
	return left + " " + op + " " + right
}

func (g *gen) selectStmt(sig []typ, depth int) string {
	from, sc := g.from(depth)
	if g.has["GROUP BY"] && g.chance(30) {
		return g.aggregate(sig, from, sc)
	}
	var b strings.Builder
	b.WriteString("SELECT ")
	if g.has["DISTINCT"] && g.chance(15) {
		b.WriteString("DISTINCT ")
	}
	for i, t := range sig {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s AS c%d", g.expr(sc, t, 2), i)
	}
	b.WriteString(" FROM " + from)
	var where []string
	if g.chance(50) {
		where = append(where, g.cond(sc, 2))
	}
	if g.chance(15) {
		where = append(where, g.subqueryCond(sc))
	}
	if len(where) > 0 {
		b.WriteString(" WHERE " + strings.Join(where, " AND "))
	}
	return b.String()
}

// aggregate writes a GROUP BY query: grouping columns first, then
// aggregates, each of the type sig asks for.
func (g *gen) aggregate(sig []typ, from string, sc []col) string {
	var sel, keys []string
	for i, t := range sig {
		var e string
		if i == 0 || g.chance(50) {
			// A grouping key: a plain column, so that it can be grouped
			// by name in both dialects.
			if c, ok := g.column(sc, t); ok {
				e = c.ref
				keys = append(keys, e)
			}
		}
		if e == "" {
			e = g.aggExpr(sc, t)
		}
		sel = append(sel, fmt.Sprintf("%s AS c%d", e, i))
	}
	if len(keys) == 0 {
		// Always group: over an empty input a global aggregate has one
		// row in a batch engine but none in a streaming one.
		keys = append(keys, pick(g, sc).ref)
	}
	q := "SELECT " + strings.Join(sel, ", ") + " FROM " + from
	if g.chance(40) {
		q += " WHERE " + g.cond(sc, 1)
	}
	q += " GROUP BY " + strings.Join(keys, ", ")
	if g.chance(30) {
		q += " HAVING " + g.aggCond(sc)
	}
	return q
}

func (g *gen) aggExpr(sc []col, t typ) string {
	switch t {
	case tBig:
		switch g.r.IntN(4) {
		case 0:
			return "COUNT(*)"
		case 1:
			return "COUNT(" + g.expr(sc, pick(g, []typ{tInt, tStr}), 1) + ")"
		case 2:
			return "COUNT(DISTINCT " + g.expr(sc, pick(g, []typ{tBig, tStr}), 0) + ")"
		default:
			return pick(g, []string{"SUM", "MIN", "MAX"}) + "(" + g.expr(sc, tBig, 1) + ")"
		}
	case tInt:
		// AVG of an INT is an INT in Flink (truncated). The generator
		// writes AVG_INT: AVG for Eddy, a macro with Flink's meaning in
		// DuckDB (see dialects).
		return pick(g, []string{"SUM", "MIN", "MAX", "AVG_INT"}) + "(" + g.expr(sc, tInt, 1) + ")"
	case tStr:
		return pick(g, []string{"MIN", "MAX"}) + "(" + g.expr(sc, tStr, 1) + ")"
	default:
		return pick(g, []string{"MIN", "MAX", "SUM"}) + "(" + g.expr(sc, tDbl, 0) + ")"
	}
}

func (g *gen) aggCond(sc []col) string {
	switch g.r.IntN(3) {
	case 0:
		return fmt.Sprintf("COUNT(*) > %d", g.r.IntN(4))
	case 1:
		return fmt.Sprintf("SUM(%s) %s %d", g.expr(sc, tInt, 0), pick(g, []string{"<", ">", "<>"}), g.r.IntN(10)-2)
	default:
		return fmt.Sprintf("MIN(%s) IS NOT NULL", g.expr(sc, pick(g, []typ{tInt, tStr}), 0))
	}
}

// from writes a FROM clause and returns the columns it makes visible.
func (g *gen) from(depth int) (string, []col) {
	if g.chance(35) {
		return g.join(depth)
	}
	return g.fromItem(depth)
}

// fromItem writes a table, a CTE or a subquery with an alias.
func (g *gen) fromItem(depth int) (string, []col) {
	if depth > 0 && g.chance(20) {
		nested := g.nested
		g.nested = true
		q, sig := g.query(nil, depth-1)
		g.nested = nested
		a := g.alias("s")
		sc := make([]col, len(sig))
		for i, t := range sig {
			sc[i] = col{fmt.Sprintf("%s.c%d", a, i), t}
		}
		return fmt.Sprintf("(%s) AS %s", q, a), sc
	}
	tables := diffTables
	if len(g.ctes) > 0 && g.chance(40) {
		tables = g.ctes
	}
	var free []table
	for _, tb := range tables {
		if g.free(tb) {
			free = append(free, tb)
		}
	}
	if len(free) == 0 {
		g.out = true
		free = tables
	}
	tb := pick(g, free)
	g.used[tb.name] = true
	for _, r := range tb.reads {
		g.used[r] = true
	}
	a := g.alias("x")
	sc := make([]col, len(tb.cols))
	for i, c := range tb.cols {
		sc[i] = col{a + "." + c, tb.typs[i]}
	}
	return tb.name + " AS " + a, sc
}

// free reports whether the query can read tb. Every table may be read
// again: gen.used only records what a query reads.
func (g *gen) free(tb table) bool { return true }

func (g *gen) join(depth int) (string, []col) {
	left, lsc := g.fromItem(depth)
	right, rsc := g.fromItem(depth)
	sc := append(append([]col(nil), lsc...), rsc...)
	kind := pick(g, []string{"JOIN", "INNER JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL OUTER JOIN", "LEFT OUTER JOIN"})
	var on []string
	for range 1 + g.r.IntN(2) {
		l := pick(g, lsc)
		var match []col
		for _, c := range rsc {
			if c.t == l.t || c.t.numeric() && l.t.numeric() {
				match = append(match, c)
			}
		}
		if len(match) == 0 {
			continue
		}
		on = append(on, l.ref+" = "+pick(g, match).ref)
	}
	if len(on) == 0 {
		on = append(on, g.cmp(sc, 0))
	}
	if g.chance(30) {
		on = append(on, g.cond(sc, 1))
	}
	return fmt.Sprintf("%s %s %s ON %s", left, kind, right, strings.Join(on, " AND ")), sc
}

// column returns a random column of type t, or of a numeric type for a
// numeric t.
func (g *gen) column(sc []col, t typ) (col, bool) {
	var cs []col
	for _, c := range sc {
		if c.t == t || t == tBig && c.t == tInt {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return col{}, false
	}
	return pick(g, cs), true
}

func (g *gen) literal(t typ) string {
	switch t {
	case tInt:
		return fmt.Sprint(g.r.IntN(10) - 3)
	case tBig:
		return fmt.Sprintf("CAST(%d AS BIGINT)", g.r.IntN(9))
	case tStr:
		return "'" + pick(g, diffStrings) + "'"
	default:
		return fmt.Sprintf("CAST(%g AS DOUBLE)", float64(g.r.IntN(9)-2)/2)
	}
}

// expr writes an expression of type t over the scope.
func (g *gen) expr(sc []col, t typ, depth int) string {
	if depth <= 0 || g.chance(45) {
		return g.leaf(sc, t)
	}
	d := depth - 1
	switch g.r.IntN(4) {
	case 0:
		return fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", g.cond(sc, d), g.expr(sc, t, d), g.expr(sc, t, d))
	case 1:
		return fmt.Sprintf("COALESCE(%s, %s)", g.expr(sc, t, d), g.leaf(sc, t))
	}
	switch t {
	case tInt, tBig:
		switch g.r.IntN(5) {
		case 0:
			return fmt.Sprintf("ABS(%s)", g.expr(sc, t, d))
		case 1:
			return fmt.Sprintf("(%s * %s)", g.expr(sc, t, d), g.leaf(sc, t))
		case 2:
			if t == tInt {
				return fmt.Sprintf("CHAR_LENGTH(%s)", g.expr(sc, tStr, d))
			}
			return fmt.Sprintf("CAST(%s AS BIGINT)", g.expr(sc, tInt, d))
		default:
			return fmt.Sprintf("(%s %s %s)", g.expr(sc, t, d), pick(g, []string{"+", "-"}), g.expr(sc, t, d))
		}
	case tStr:
		switch g.r.IntN(4) {
		case 0:
			return fmt.Sprintf("UPPER(%s)", g.expr(sc, t, d))
		case 1:
			return fmt.Sprintf("LOWER(%s)", g.expr(sc, t, d))
		case 2:
			return fmt.Sprintf("CAST(%s AS STRING)", g.expr(sc, pick(g, []typ{tInt, tBig}), d))
		default:
			return fmt.Sprintf("(%s || %s)", g.expr(sc, t, d), g.expr(sc, t, d))
		}
	default:
		return fmt.Sprintf("(%s + %s)", g.expr(sc, t, d), g.leaf(sc, t))
	}
}

func (g *gen) leaf(sc []col, t typ) string {
	if g.chance(75) {
		if c, ok := g.column(sc, t); ok {
			return c.ref
		}
	}
	if g.chance(5) {
		return "CAST(NULL AS " + t.sql() + ")"
	}
	return g.literal(t)
}

// cond writes a boolean condition over the scope.
func (g *gen) cond(sc []col, depth int) string {
	if depth <= 0 || g.chance(50) {
		return g.cmp(sc, depth)
	}
	d := depth - 1
	switch g.r.IntN(3) {
	case 0:
		return fmt.Sprintf("(%s AND %s)", g.cond(sc, d), g.cond(sc, d))
	case 1:
		return fmt.Sprintf("(%s OR %s)", g.cond(sc, d), g.cond(sc, d))
	default:
		return fmt.Sprintf("NOT (%s)", g.cond(sc, d))
	}
}

// cmp writes an atomic predicate.
func (g *gen) cmp(sc []col, depth int) string {
	t := pick(g, sc).t
	e := g.expr(sc, t, min(depth, 1))
	switch g.r.IntN(8) {
	case 0:
		return e + pick(g, []string{" IS NULL", " IS NOT NULL"})
	case 1:
		return fmt.Sprintf("%s IN (%s, %s, %s)", e, g.literal(t), g.literal(t), g.literal(t))
	case 2:
		lo, hi := g.literal(t), g.literal(t)
		return fmt.Sprintf("%s BETWEEN %s AND %s", e, lo, hi)
	case 3:
		if t == tStr {
			return fmt.Sprintf("%s LIKE '%s%%'", e, pick(g, diffStrings)[:1])
		}
	}
	op := pick(g, []string{"=", "<>", "<", "<=", ">", ">="})
	return fmt.Sprintf("%s %s %s", e, op, g.expr(sc, t, min(depth, 1)))
}

// subqueryCond writes IN (query) or [NOT] EXISTS correlated by an
// equality with a column of the scope.
//
// Eddy supports these only as conditions of WHERE joined by AND (NOT IN
// over nullable columns as a null-aware anti join), and EXISTS only
// correlated by equalities of columns (UNSUPPORTED otherwise). DuckDB
// rejects subqueries in the ON of an outer join.
func (g *gen) subqueryCond(sc []col) string {
	outer := pick(g, sc)
	from, inner := g.fromItem(0)
	c, ok := g.column(inner, outer.t)
	if !ok || outer.t == tDbl {
		return outer.ref + " IS NOT NULL"
	}
	if g.chance(50) {
		q := fmt.Sprintf("SELECT %s FROM %s", c.ref, from)
		var where []string
		if o2 := pick(g, sc); g.chance(40) && o2.t != tDbl {
			// Correlated: decorrelated into a semi (null-aware anti) join.
			if c2, ok := g.column(inner, o2.t); ok {
				where = append(where, c2.ref+" = "+o2.ref)
			}
		}
		if g.chance(40) {
			where = append(where, g.cond(inner, 0))
		}
		if len(where) > 0 {
			q += " WHERE " + strings.Join(where, " AND ")
		}
		not := ""
		if g.has["NOT IN"] && g.chance(40) {
			not = "NOT "
		}
		return fmt.Sprintf("%s %sIN (%s)", outer.ref, not, q)
	}
	where := c.ref + " = " + outer.ref
	if g.chance(40) {
		where += " AND " + g.cond(inner, 0)
	}
	return fmt.Sprintf("%sEXISTS (SELECT 1 FROM %s WHERE %s)", pick(g, []string{"", "NOT "}), from, where)
}
