package expr

import (
	"strings"

	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// normOp upper-cases an operator and collapses inner white space, so that
// "is  not null" and "IS NOT NULL" are the same.
func normOp(op string) string { return strings.Join(strings.Fields(strings.ToUpper(op)), " ") }

func errNilArg(op string) error {
	return sqlerr.Newf(sqlerr.Internal, "%s: missing operand", op)
}

// Binary returns l op r. Operators (case-insensitive):
//
//   - - * / %                 arithmetic (see below)
//     = <> != < <= > >=         comparison; NULL if an operand is NULL
//     IS DISTINCT FROM, IS NOT DISTINCT FROM
//     AND OR                    three-valued logic
//     ||                        string concatenation
//     LIKE, NOT LIKE            SQL pattern match ('%', '_', escape '\')
//
// Arithmetic on numbers promotes TINYINT < SMALLINT < INT < BIGINT <
// DECIMAL < FLOAT < DOUBLE; DECIMAL results follow Flink's precision and
// scale rules (e.g. DECIMAL(5, 2) + INT is DECIMAL(13, 2)); '%' needs exact
// numbers. Integer overflow wraps around like Java (and Flink); integer and
// DECIMAL division by zero is a runtime error while FLOAT/DOUBLE division
// gives Infinity or NaN. Datetimes accept + and - with intervals
// (TIMESTAMP(3) + INTERVAL ... is TIMESTAMP(3)); intervals can be added,
// subtracted, multiplied and divided by integers.
//
// The result is nullable if an operand is; an untyped NULL operand takes
// the type of the other one.
func Binary(op string, l, r Expr) (Expr, error) {
	if l == nil || r == nil {
		return nil, errNilArg(op)
	}
	switch o := normOp(op); o {
	case "+", "-", "*", "/", "%":
		return newArith(o[0], l, r)
	case "=":
		return newCompare(opEQ, l, r)
	case "<>", "!=":
		return newCompare(opNE, l, r)
	case "<":
		return newCompare(opLT, l, r)
	case "<=":
		return newCompare(opLE, l, r)
	case ">":
		return newCompare(opGT, l, r)
	case ">=":
		return newCompare(opGE, l, r)
	case "IS DISTINCT FROM":
		return newDistinct(false, l, r)
	case "IS NOT DISTINCT FROM":
		return newDistinct(true, l, r)
	case "AND":
		return newLogic(false, l, r)
	case "OR":
		return newLogic(true, l, r)
	case "||":
		return newConcatOp(l, r)
	case "LIKE":
		return newLike(false, l, r)
	case "NOT LIKE":
		return newLike(true, l, r)
	}
	return nil, sqlerr.Newf(sqlerr.Internal, "unknown binary operator %s", quoteOp(op))
}

// Unary returns op e. Operators (case-insensitive): NOT, - and + (numbers
// and intervals; integer negation wraps), and the postfix tests IS [NOT]
// NULL, IS [NOT] TRUE, IS [NOT] FALSE, IS [NOT] UNKNOWN. The IS tests never
// return NULL; NOT NULL is NULL.
func Unary(op string, e Expr) (Expr, error) {
	if e == nil {
		return nil, errNilArg(op)
	}
	switch normOp(op) {
	case "NOT":
		return newNot(e)
	case "-":
		return newNeg(e)
	case "+":
		if _, err := newNeg(e); err != nil {
			return nil, typeErrorf("cannot apply '+' to argument of type %s", typeString(e.Type()))
		}
		return e, nil
	case "IS NULL":
		return newIs(isNull, e)
	case "IS NOT NULL":
		return newIs(isNotNull, e)
	case "IS TRUE":
		return newIs(isTrue, e)
	case "IS NOT TRUE":
		return newIs(isNotTrue, e)
	case "IS FALSE":
		return newIs(isFalse, e)
	case "IS NOT FALSE":
		return newIs(isNotFalse, e)
	case "IS UNKNOWN":
		if !isBoolish(e.Type()) {
			return nil, typeErrorf("cannot apply 'IS UNKNOWN' to argument of type %s", typeString(e.Type()))
		}
		return newIs(isNull, e)
	case "IS NOT UNKNOWN":
		if !isBoolish(e.Type()) {
			return nil, typeErrorf("cannot apply 'IS NOT UNKNOWN' to argument of type %s", typeString(e.Type()))
		}
		return newIs(isNotNull, e)
	}
	return nil, sqlerr.Newf(sqlerr.Internal, "unknown unary operator %s", quoteOp(op))
}
