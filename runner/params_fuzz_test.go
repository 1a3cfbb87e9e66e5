package runner

import (
	"strconv"
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// FuzzParseDuration: a duration that parses is not negative, prints (as Go
// prints durations) to text that parses to the same value, and reads the
// same through DurationOf, as a Starlark string and, for a bare number of
// seconds, as a Starlark number. A refusal names the input.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"300s", "5m", "1h30m", "0.5s", "300", "2.5", "0", "1h", "250ms"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("ParseDuration(%q): error on several lines: %v", s, err)
			}
			if _, err2 := DurationOf(starlark.String(s)); err2 == nil {
				t.Fatalf("ParseDuration(%q) fails (%v) but DurationOf accepts it", s, err)
			}
			return
		}
		if d < 0 {
			t.Fatalf("ParseDuration(%q) = %v: negative", s, d)
		}
		again, err := ParseDuration(d.String())
		if err != nil || again != d {
			t.Fatalf("ParseDuration(%q) = %v, which prints as %q and parses back to %v, %v", s, d, d.String(), again, err)
		}
		if via, err := DurationOf(starlark.String(s)); err != nil || via != d {
			t.Fatalf("DurationOf(%q) = %v, %v; ParseDuration gave %v", s, via, err, d)
		}
		if secs, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			if via, err := DurationOf(starlark.Float(secs)); err != nil || via != d {
				t.Fatalf("DurationOf(%v seconds) = %v, %v; ParseDuration(%q) gave %v", secs, via, err, s, d)
			}
			if secs == float64(int64(secs)) && secs < 1e9 {
				if via, err := DurationOf(starlark.MakeInt64(int64(secs))); err != nil || via != d {
					t.Fatalf("DurationOf(%d seconds) = %v, %v; ParseDuration(%q) gave %v", int64(secs), via, err, s, d)
				}
			}
		}
	})
}

// formatOverride writes a parameter value back as -p text.
func formatOverride(t *testing.T, p *Param, v starlark.Value) string {
	t.Helper()
	if p.List {
		seq := v.(starlark.Indexable)
		parts := make([]string, seq.Len())
		for i := range parts {
			parts[i] = formatScalar(t, p.Kind, seq.Index(i))
		}
		return strings.Join(parts, ",")
	}
	return formatScalar(t, p.Kind, v)
}

func formatScalar(t *testing.T, kind string, v starlark.Value) string {
	switch kind {
	case "float":
		return strconv.FormatFloat(float64(v.(starlark.Float)), 'g', -1, 64)
	case "bool":
		return strconv.FormatBool(bool(v.(starlark.Bool)))
	case "string", "duration":
		return string(v.(starlark.String))
	}
	return v.String()
}

// FuzzParamOverride: a -p value that parses has the parameter's type (the
// check a default must pass), a duration keeps the span the text gave and
// reads back as a duration, and the value written back as -p text parses
// to the same value. A refusal is one line.
func FuzzParamOverride(f *testing.F) {
	for _, c := range []struct {
		kind uint8
		list bool
		text string
	}{
		{0, true, "150,300,600"}, {0, false, "16"}, {0, false, "-3"}, {0, false, " 7 "},
		{1, false, "0.5"}, {1, false, "2"}, {1, true, "1e3, .5"},
		{2, false, "true"}, {2, false, "off"}, {2, true, "yes,no"},
		{3, false, "x=y"}, {3, true, "a,b"}, {3, true, ""},
		{4, false, "300s"}, {4, false, "5m"}, {4, false, "300"}, {4, false, "0.5"}, {4, true, "1s, 1h30m"},
	} {
		f.Add(c.kind, c.list, c.text)
	}
	f.Fuzz(func(t *testing.T, kind uint8, list bool, text string) {
		p := &Param{Name: "x", Kind: paramKinds[int(kind)%len(paramKinds)], List: list}
		v, err := parseOverride(p, text)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("-p x=%q (%s): error on several lines: %v", text, p.TypeName(), err)
			}
			return
		}
		if err := checkValue(p, v); err != nil {
			t.Fatalf("-p x=%q (%s) gave %v, which is not a %s: %v", text, p.TypeName(), v, p.TypeName(), err)
		}
		if p.Kind == "duration" {
			texts, values := []string{text}, []starlark.Value{v}
			if p.List {
				texts, values = strings.Split(text, ","), nil
				seq := v.(starlark.Indexable)
				for i := 0; i < seq.Len(); i++ {
					values = append(values, seq.Index(i))
				}
			}
			for i, val := range values {
				want, _ := ParseDuration(texts[i])
				got, err := DurationOf(val)
				if err != nil || got != want {
					t.Fatalf("-p x=%q: element %d is %v, which reads as %v, %v; the text says %v", text, i, val, got, err, want)
				}
			}
		}
		back := formatOverride(t, p, v)
		again, err := parseOverride(p, back)
		if err != nil {
			t.Fatalf("-p x=%q (%s) gave %v, written back as %q, which does not parse: %v", text, p.TypeName(), v, back, err)
		}
		if eq, err := starlark.Equal(v, again); err != nil || !eq {
			t.Fatalf("-p x=%q (%s) gave %v; written back as %q it gives %v", text, p.TypeName(), v, back, again)
		}
	})
}

// FuzzDurationOfNumber: a number of seconds that DurationOf accepts gives a
// duration that is not negative and is within a nanosecond per second of
// the number (no wrap-around at the top of the range).
func FuzzDurationOfNumber(f *testing.F) {
	for _, secs := range []float64{300, 0.5, 0, 1e-9, 9.2e9, 9223372036.854775} {
		f.Add(secs)
	}
	f.Fuzz(func(t *testing.T, secs float64) {
		d, err := DurationOf(starlark.Float(secs))
		if err != nil {
			return
		}
		if d < 0 {
			t.Fatalf("DurationOf(%v seconds) = %v: negative", secs, d)
		}
		if diff := d.Seconds() - secs; diff > 1e-6*(secs+1) || diff < -1e-6*(secs+1) {
			t.Fatalf("DurationOf(%v seconds) = %v (%v s)", secs, d, d.Seconds())
		}
	})
}
