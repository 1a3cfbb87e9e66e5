package dbstar

import (
	"crypto/sha256"
	"fmt"
	"math/big"

	"go.starlark.net/starlark"
)

// ToSQLArg converts a Starlark value to a query parameter (the plan
// modules that send statements share it).
func ToSQLArg(v starlark.Value) (any, error) {
	switch v := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case starlark.Bool:
		return bool(v), nil
	case starlark.Int:
		if n, ok := v.Int64(); ok {
			return n, nil
		}
		if n, ok := v.Uint64(); ok {
			return n, nil
		}
		return v.String(), nil
	case starlark.Float:
		return float64(v), nil
	case starlark.String:
		return string(v), nil
	case starlark.Bytes:
		return []byte(v), nil
	}
	return nil, fmt.Errorf("cannot pass a %s as a query parameter (want None, bool, int, float, string or bytes)", v.Type())
}

func toSQLArgs(values starlark.Tuple) ([]any, error) {
	out := make([]any, len(values))
	for i, v := range values {
		a, err := ToSQLArg(v)
		if err != nil {
			return nil, fmt.Errorf("parameter %d: %w", i+1, err)
		}
		out[i] = a
	}
	return out, nil
}

// FromSQLValue converts a value of a result (db.ResultSet's kinds) to
// Starlark.
func FromSQLValue(v any) starlark.Value {
	switch v := v.(type) {
	case nil:
		return starlark.None
	case int64:
		return starlark.MakeInt64(v)
	case uint64:
		return starlark.MakeBigInt(new(big.Int).SetUint64(v))
	case float64:
		return starlark.Float(v)
	case string:
		return starlark.String(v)
	case []byte:
		return starlark.Bytes(v)
	case bool:
		return starlark.Bool(v)
	}
	return starlark.String(fmt.Sprint(v))
}

// argsSummary is the journal's view of query parameters.
func argsSummary(args []any) map[string]any {
	if len(args) == 0 {
		return nil
	}
	shown := make([]any, len(args))
	for i, a := range args {
		if b, ok := a.([]byte); ok {
			sum := sha256.Sum256(b)
			shown[i] = fmt.Sprintf("<%d bytes sha256:%x>", len(b), sum[:8])
		} else {
			shown[i] = a
		}
	}
	return map[string]any{"args": shown}
}
