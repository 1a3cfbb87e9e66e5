package main

import (
	"database/sql"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/internal/testutil/sshtest"
	"github.com/starbench/starbench/internal/testutil/tiupstub"
)

// tidbRig stands in for a seed plan's TiDB hosts, so that its whole
// procedure runs here: a private sshd is the control host, the tiup
// stand-in runs there (deploy, start, display, destroy with tiup's
// contract), one private MariaDB is the clusters' storage, and on port
// 4000 of each TiDB host address (a loopback address of its own) a Front
// relays to it, answering TiDB's statements (SET tidb_*, SHOW CONFIG from
// the deployed cluster's topology, ADMIN CHECKSUM TABLE, TiDB's VERSION(),
// the TIKV_* tables) for whichever of the plan's clusters is deployed.
// Every figure the plan's workloads measure is MariaDB's.
type tidbRig struct {
	ssh       *sshtest.Server
	stub      *tiupstub.Stub
	m         *sandbox.MariaDB
	tidbHosts []string // each with a Front on port 4000
	fronts    []*tiupstub.Front

	mu         sync.Mutex
	fresh      map[string]bool // clusters whose storage was made new
	startFront func(addr string)
}

// newTiDBRig starts the rig with tidbHosts TiDB servers, for clusters (the
// names the plan deploys, one at a time).
func newTiDBRig(t *testing.T, tidbHosts int, clusters []string) *tidbRig {
	t.Helper()
	r := &tidbRig{ssh: sshtest.Start(t), stub: tiupstub.New(t), fresh: map[string]bool{}}
	// A new TiDB's root has no password, and it has a database test.
	r.m = sandboxtest.Fresh(t, sandbox.MariaDBOptions{Database: "test"})
	admin, err := sql.Open("mysql", r.m.Config().FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec("ALTER USER 'root'@'127.0.0.1' IDENTIFIED BY ''"); err != nil {
		t.Fatal(err)
	}
	admin.Close()
	cfg := r.m.Config()
	cfg.Passwd = ""
	deployed := func() (string, error) {
		for _, name := range clusters {
			if r.stub.Deployed(name) {
				return name, nil
			}
		}
		return "", fmt.Errorf("none of %s is deployed", strings.Join(clusters, ", "))
	}
	stores := func() ([]tiupstub.Store, error) {
		name, err := deployed()
		if err != nil {
			return nil, err
		}
		if err := r.newStorage(name); err != nil {
			return nil, err
		}
		return r.stub.ClusterStores(name)()
	}
	config := func() ([]tiupstub.ConfigRow, error) {
		name, err := deployed()
		if err != nil {
			return nil, err
		}
		return r.stub.ClusterConfig(name)()
	}
	r.startFront = func(addr string) {
		f := tiupstub.StartFrontAt(t, addr, cfg, stores)
		f.Config, f.Version = config, "5.7.25-TiDB-v5.2.0"
		r.fronts = append(r.fronts, f)
	}
	for i := 0; i < tidbHosts; i++ {
		host := freeLoopbackAt(t, 4000, r.tidbHosts)
		r.tidbHosts = append(r.tidbHosts, host)
		r.startFront(host + ":4000")
	}
	return r
}

// addTiDB puts a TiDB server on another port of one of the TiDB hosts (a
// second TiDB on one machine).
func (r *tidbRig) addTiDB(host string, port int) {
	r.startFront(net.JoinHostPort(host, strconv.Itoa(port)))
}

// newStorage makes the storage new the first time a cluster is asked
// about (wait_ready's look at its stores, before the plan writes): a
// cluster deployed after another starts empty, as a new TiDB cluster does.
func (r *tidbRig) newStorage(cluster string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fresh[cluster] {
		return nil
	}
	db := r.fronts[0].DB
	rows, err := db.Query("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA")
	if err != nil {
		return err
	}
	var drop []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		switch {
		case s == "mysql" || s == "information_schema" || s == "performance_schema" || s == "sys":
		case strings.HasPrefix(s, "tidb_front_"):
		default:
			drop = append(drop, s)
		}
	}
	rows.Close()
	for _, s := range drop {
		if _, err := db.Exec("DROP DATABASE `" + s + "`"); err != nil {
			return err
		}
	}
	if _, err := db.Exec("CREATE DATABASE test"); err != nil {
		return err
	}
	r.fresh[cluster] = true
	return nil
}

// params are the plan parameters that point it at the rig.
func (r *tidbRig) params() []string {
	return []string{"-p", "control=" + r.ssh.User + "@" + r.ssh.Addr, "-p", "key_file=" + r.ssh.KeyFile, "-p", "known_hosts=" + r.ssh.KnownHosts,
		"-p", "tiup=" + r.stub.Tiup, "-p", "identity_file=" + r.ssh.KeyFile}
}

// otherHosts are n loopback addresses for the cluster's other roles (PD,
// TiKV, monitoring): names in the topology, nothing listens there.
func otherHosts(n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf("127.0.%d.%d", 200+i/200, 1+i%200))
	}
	return out
}

// freeLoopbackAt returns a loopback address 127.x.y.z, not in taken, whose
// port is free.
func freeLoopbackAt(t *testing.T, port int, taken []string) string {
	t.Helper()
	seed := time.Now().UnixNano()
	for i := int64(0); i < 50; i++ {
		host := fmt.Sprintf("127.%d.%d.%d", 10+(seed+i)%150, 1+(seed/7+i)%250, 1+(seed/13+i)%250)
		if contains(taken, host) {
			continue
		}
		if l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port))); err == nil {
			l.Close()
			return host
		}
	}
	t.Fatalf("no loopback address with port %d free", port)
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// freePort is a free port on 127.0.0.1.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
