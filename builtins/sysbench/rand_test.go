package sysbench

import "testing"

// AppendString inlines the generator for speed; it must draw exactly the
// characters Uniform would, so that a seed gives the same data as before.
func TestAppendStringMatchesUniformDraws(t *testing.T) {
	o := Defaults("1.0.20")
	fast, slow := NewRand(42, &o), NewRand(42, &o)
	for i, template := range []string{CTemplate, PadTemplate, "@@-##", "", "plain"} {
		got := string(fast.AppendString([]byte("x"), template))
		want := "x"
		for j := 0; j < len(template); j++ {
			switch c := template[j]; c {
			case '#':
				want += string(rune('0' + slow.Uniform(0, 9)))
			case '@':
				want += string(rune('a' + slow.Uniform(0, 25)))
			default:
				want += string(c)
			}
		}
		if got != want {
			t.Fatalf("template %d: got %q, want %q", i, got, want)
		}
	}
	if fast.Uint64() != slow.Uint64() {
		t.Fatal("the generators' states differ after the strings")
	}
}

func BenchmarkPrepareRow(b *testing.B) {
	o := Defaults("1.0.20")
	rng := NewRand(1, &o)
	buf := make([]byte, 0, 256)
	for i := 0; i < b.N; i++ {
		buf = appendRow(buf[:0], &o, rng, int64(i), rng.Default(1, 10000))
	}
	b.SetBytes(int64(len(buf)))
}
