package mysqlconn

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// textStmt emulates a prepared statement by writing the arguments into the
// text, as sysbench does with --db-ps-mode=disable.
type textStmt struct {
	s     *Session
	query string
}

func (t *textStmt) Exec(ctx context.Context, args ...any) (int64, error) {
	q, err := Interpolate(t.query, args)
	if err != nil {
		return 0, err
	}
	return t.s.Exec(ctx, q)
}

func (t *textStmt) Query(ctx context.Context, args ...any) error {
	q, err := Interpolate(t.query, args)
	if err != nil {
		return err
	}
	_, err = t.s.Query(ctx, q)
	return err
}

func (t *textStmt) Close() error { return nil }

// Interpolate writes args into the ? placeholders of query as SQL literals.
func Interpolate(query string, args []any) (string, error) {
	var b strings.Builder
	b.Grow(len(query) + 16*len(args))
	n := 0
	for i := 0; i < len(query); i++ {
		ch := query[i]
		if ch != '?' {
			b.WriteByte(ch)
			continue
		}
		if n >= len(args) {
			return "", fmt.Errorf("statement has more placeholders than the %d arguments given", len(args))
		}
		if err := appendLiteral(&b, args[n]); err != nil {
			return "", err
		}
		n++
	}
	if n != len(args) {
		return "", fmt.Errorf("statement has %d placeholders, got %d arguments", n, len(args))
	}
	return b.String(), nil
}

func appendLiteral(b *strings.Builder, v any) error {
	switch v := v.(type) {
	case nil:
		b.WriteString("NULL")
	case int:
		b.WriteString(strconv.Itoa(v))
	case int32:
		b.WriteString(strconv.FormatInt(int64(v), 10))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case uint32:
		b.WriteString(strconv.FormatUint(uint64(v), 10))
	case uint64:
		b.WriteString(strconv.FormatUint(v, 10))
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("cannot write %v as SQL", v)
		}
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	case bool:
		if v {
			b.WriteString("1")
		} else {
			b.WriteString("0")
		}
	case string:
		b.WriteByte('\'')
		for i := 0; i < len(v); i++ {
			switch c := v[i]; c {
			case '\'', '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case 0:
				b.WriteString(`\0`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case 0x1a:
				b.WriteString(`\Z`)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('\'')
	case []byte:
		return appendLiteral(b, string(v))
	case time.Time:
		return appendLiteral(b, v.Format("2006-01-02 15:04:05.999999"))
	default:
		return fmt.Errorf("cannot write a %T as SQL", v)
	}
	return nil
}
