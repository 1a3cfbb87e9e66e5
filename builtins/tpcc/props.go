package tpcc

import (
	"bufio"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Props is what starbench takes from a BenchmarkSQL props file
// (props.mysql): the connection, the size, the load and run threads, how
// long the run is, and the transaction weights.
type Props struct {
	Host, DB, User, Password string
	Port                     int
	Warehouses               int
	LoadWorkers              int           // prepare's threads
	Terminals                int           // run's threads
	RunTime                  time.Duration // runMins
	TxnsPerTerminal          int64         // runTxnsPerTerminal
	Weights                  Weights
	Ignored                  []string // keys BenchmarkSQL knows that starbench does not use
	Warnings                 []string // unknown keys, with the nearest known one
}

// Weights are the shares of the five transactions in percent, in the
// order of Kinds: New-Order, Payment, Order-Status, Delivery, Stock-Level.
type Weights [5]int

// DefaultWeights are the specification's mix: 45/43/4/4/4.
var DefaultWeights = Weights{45, 43, 4, 4, 4}

// propsKeys are the keys starbench reads; propsIgnored the ones BenchmarkSQL
// knows that it does not use (its result files, its OS collector, its JDBC
// driver name, its rate limit and fixed-warehouse switch).
var (
	propsKeys = []string{"conn", "user", "password", "warehouses", "loadWorkers", "terminals", "runMins",
		"runTxnsPerTerminal", "newOrderWeight", "paymentWeight", "orderStatusWeight", "deliveryWeight", "stockLevelWeight"}
	propsIgnored = []string{"db", "driver", "resultDirectory", "osCollectorScript", "osCollectorInterval",
		"osCollectorSSHAddr", "osCollectorDevices", "limitTxnsPerMin", "terminalWarehouseFixed"}
)

// ReadProps reads a props file: key=value lines, "//" and "#" comments.
func ReadProps(r io.Reader, name string) (*Props, error) {
	values := map[string]string{}
	p := &Props{Weights: DefaultWeights, Port: 3306}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") || strings.HasPrefix(text, "//") {
			continue
		}
		key, value, ok := strings.Cut(text, "=")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want key=value, got %q", name, line, text)
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch {
		case oneOf(propsKeys, key):
			values[key] = value
		case oneOf(propsIgnored, key):
			p.Ignored = append(p.Ignored, key)
		default:
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s:%d: unknown key %q (did you mean %q?)", name, line, key, nearest(key)))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := p.set(values); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	sort.Strings(p.Ignored)
	return p, nil
}

// set reads the values of the keys starbench uses.
func (p *Props) set(values map[string]string) error {
	conn, ok := values["conn"]
	if !ok {
		return fmt.Errorf("no conn (a JDBC URL, jdbc:mysql://host:port/db)")
	}
	u, err := url.Parse(strings.TrimPrefix(conn, "jdbc:"))
	if err != nil || u.Scheme != "mysql" || u.Hostname() == "" {
		return fmt.Errorf("conn %q is not a MySQL JDBC URL (jdbc:mysql://host:port/db)", conn)
	}
	p.Host, p.DB = u.Hostname(), strings.TrimPrefix(u.Path, "/")
	if port := u.Port(); port != "" {
		if p.Port, err = strconv.Atoi(port); err != nil {
			return fmt.Errorf("conn %q: port %q", conn, port)
		}
	}
	p.User, p.Password = values["user"], values["password"]
	ints := map[string]*int{"warehouses": &p.Warehouses, "loadWorkers": &p.LoadWorkers, "terminals": &p.Terminals,
		"newOrderWeight": &p.Weights[0], "paymentWeight": &p.Weights[1], "orderStatusWeight": &p.Weights[2],
		"deliveryWeight": &p.Weights[3], "stockLevelWeight": &p.Weights[4]}
	for key, dst := range ints {
		if v, ok := values[key]; ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return fmt.Errorf("%s = %q is not a whole number", key, v)
			}
			*dst = n
		}
	}
	var mins, txns float64
	for key, dst := range map[string]*float64{"runMins": &mins, "runTxnsPerTerminal": &txns} {
		if v, ok := values[key]; ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0 {
				return fmt.Errorf("%s = %q is not a number", key, v)
			}
			*dst = f
		}
	}
	p.RunTime, p.TxnsPerTerminal = time.Duration(mins*float64(time.Minute)), int64(txns)
	return p.check()
}

// check applies BenchmarkSQL's own rules.
func (p *Props) check() error {
	switch {
	case p.Warehouses < 1:
		return fmt.Errorf("warehouses must be at least 1")
	case (p.RunTime > 0) == (p.TxnsPerTerminal > 0):
		return fmt.Errorf("give one of runMins and runTxnsPerTerminal, and the other 0 (BenchmarkSQL's rule)")
	}
	sum := 0
	for _, w := range p.Weights {
		sum += w
	}
	if sum != 100 {
		return fmt.Errorf("the five weights add up to %d, not 100", sum)
	}
	return nil
}

// nearest is the known key closest to an unknown one (edit distance).
func nearest(key string) string {
	best, bestD := "", 1<<30
	for _, k := range append(append([]string{}, propsKeys...), propsIgnored...) {
		if d := editDistance(strings.ToLower(key), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
