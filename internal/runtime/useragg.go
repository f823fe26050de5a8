package runtime

import (
	"fmt"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// userAggFunc runs a user-defined aggregate function: its accumulator is
// ext.user, created on the first row. A panic in the function becomes an
// error that fails the statement. An error of Value (which the aggFunc
// interface cannot return) is kept in err for the operator to report.
type userAggFunc struct {
	name string
	fn   jobgraph.UserAggregate
	err  error
}

// guard calls f, turning a panic into an error.
func (u *userAggFunc) guard(what string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("aggregate function %s panicked in %s: %v", u.name, what, r)
		}
	}()
	if err := f(); err != nil {
		return fmt.Errorf("aggregate function %s: %s: %w", u.name, what, err)
	}
	return nil
}

func (u *userAggFunc) acc(s *accState) (any, error) {
	x := s.x()
	if x.user == nil {
		err := u.guard("CreateAccumulator", func() error {
			var err error
			x.user, err = u.fn.CreateAccumulator()
			if err == nil && x.user == nil {
				err = fmt.Errorf("it returned a nil accumulator")
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return x.user, nil
}

func (u *userAggFunc) add(s *accState, args []types.Value) error {
	acc, err := u.acc(s)
	if err != nil {
		return err
	}
	return u.guard("Accumulate", func() error { return u.fn.Accumulate(acc, args) })
}

func (u *userAggFunc) retract(s *accState, args []types.Value) error {
	acc, err := u.acc(s)
	if err != nil {
		return err
	}
	return u.guard("Retract", func() error { return u.fn.Retract(acc, args) })
}

func (u *userAggFunc) value(s *accState) types.Value {
	acc, err := u.acc(s)
	if err != nil {
		u.err = err
		return types.Null
	}
	var v types.Value
	if err := u.guard("Value", func() error {
		var err error
		v, err = u.fn.Value(acc)
		return err
	}); err != nil {
		u.err = err
		return types.Null
	}
	return v
}

func (u *userAggFunc) encode(acc any) ([]byte, error) {
	var b []byte
	err := u.guard("EncodeAccumulator", func() error {
		var err error
		b, err = u.fn.EncodeAccumulator(acc)
		return err
	})
	return b, err
}

func (u *userAggFunc) decode(b []byte) (any, error) {
	var acc any
	err := u.guard("DecodeAccumulator", func() error {
		var err error
		acc, err = u.fn.DecodeAccumulator(b)
		return err
	})
	return acc, err
}

// takeErr returns and clears the error of the last value call.
func (u *userAggFunc) takeErr() error {
	err := u.err
	u.err = nil
	return err
}
