package tidbsql

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// cluster is the stand-in's model of a TiDB cluster: TiKV stores, PD's
// Regions over TiDB's key space, the tables TiDB gave IDs to, the
// configuration SHOW CONFIG reports and the backups BR wrote. One mutex
// guards it all; every connection shares it.
type cluster struct {
	mu       sync.Mutex
	opts     Options
	tidbAddr string

	nextID     uint64 // PD's allocator: Region and peer IDs
	nextMetaID int64  // TiDB's global ID allocator: schema and table IDs
	stores     []*store
	regions    []*region // sorted by start key, covering the whole key space
	rr         int       // round-robin cursor for placing peers and leaders

	dbs     map[string]*dbInfo      // by lower-case name
	tables  map[tableKey]*tableInfo // live tables
	config  map[string]map[string]string
	backups map[string]*backup
	globals map[string]string            // SET GLOBAL tidb_*
	session map[uint32]map[string]string // SET [SESSION] tidb_*, by connection
}

// store is a TiKV store as PD reports it.
type store struct {
	id        uint64
	addr      string
	state     string // Up, Disconnected, Down, Offline, Tombstone
	started   time.Time
	heartbeat time.Time // last heartbeat when the store has stopped sending them
	capacity  uint64
}

// metaState is PD's metapb.StoreState: Up 0, Offline 1, Tombstone 2. Down
// and Disconnected are names PD derives for an Up store whose heartbeats
// stopped.
func (s *store) metaState() int64 {
	switch s.state {
	case "Offline":
		return 1
	case "Tombstone":
		return 2
	}
	return 0
}

// serving reports whether the store's peers can lead and answer.
func (s *store) serving() bool { return s.state != "Down" && s.state != "Tombstone" }

func (s *store) lastHeartbeat(now time.Time) time.Time {
	if s.state == "Down" || s.state == "Disconnected" {
		return s.heartbeat
	}
	return now
}

type peer struct {
	id, store uint64
}

// region is a PD Region: [start, end) of TiDB's raw keys, nil meaning
// infinity on either side.
type region struct {
	id               uint64
	start, end       []byte
	peers            []peer
	leader           uint64 // peer ID
	confVer, version uint64
}

func (r *region) contains(key []byte) bool {
	return bytes.Compare(r.start, key) <= 0 && (r.end == nil || bytes.Compare(key, r.end) < 0)
}

// overlaps reports whether the region meets [lo, hi).
func (r *region) overlaps(lo, hi []byte) bool {
	return (r.end == nil || bytes.Compare(lo, r.end) < 0) && bytes.Compare(r.start, hi) < 0
}

// firstMetaID is the first schema or table ID the model gives; a fresh
// TiDB has given the IDs below to its system schemas and tables.
const firstMetaID = 60

type tableKey struct{ db, name string }

func keyOf(db, name string) tableKey { return tableKey{strings.ToLower(db), strings.ToLower(name)} }

type dbInfo struct {
	id   int64
	name string
}

func newCluster(opts Options) *cluster {
	now := time.Now()
	// The stores have been up for a while when the stand-in starts, so a
	// Down store's last heartbeat (30 minutes back) comes after its start.
	started := now.Add(-2 * time.Hour)
	c := &cluster{
		opts:       opts,
		nextID:     uint64(opts.TiKV) + 1,
		nextMetaID: firstMetaID,
		dbs:        map[string]*dbInfo{},
		tables:     map[tableKey]*tableInfo{},
		config:     defaultConfig(opts),
		backups:    map[string]*backup{},
		globals:    map[string]string{},
		session:    map[uint32]map[string]string{},
	}
	for i := 0; i < opts.TiKV; i++ {
		c.stores = append(c.stores, &store{
			id: uint64(i + 1), addr: fmt.Sprintf("127.0.0.1:%d", 20160+i), state: "Up",
			started: started, capacity: 500 << 30,
		})
	}
	first := &region{id: c.alloc(), version: 1}
	for i := 0; i < len(c.stores) && i < opts.Replicas; i++ {
		first.peers = append(first.peers, peer{id: c.alloc(), store: c.stores[i].id})
	}
	if len(first.peers) > 0 {
		first.leader = first.peers[0].id
	}
	first.confVer = uint64(len(first.peers))
	c.regions = []*region{first}
	for _, name := range append([]string{"test"}, opts.Databases...) {
		c.noteDB(name)
	}
	for comp, kv := range opts.Config {
		for k, v := range kv {
			c.config[strings.ToLower(comp)][k] = v // start checked the component
		}
	}
	return c
}

func defaultConfig(opts Options) map[string]map[string]string {
	return map[string]map[string]string{
		"tidb": {"log.level": "info", "split-table": "true", "token-limit": "1000", "mem-quota-query": "1073741824"},
		"tikv": {"log-level": "info", "raftstore.apply-pool-size": "2", "raftstore.store-pool-size": "2"},
		"pd":   {"replication.max-replicas": strconv.Itoa(opts.Replicas), "schedule.leader-schedule-limit": "4"},
	}
}

func (c *cluster) setConfig(component, name, value string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.config[strings.ToLower(component)]
	if !ok {
		return fmt.Errorf("unknown component %q (tidb, tikv or pd)", component)
	}
	m[name] = value
	return nil
}

func (c *cluster) alloc() uint64 {
	id := c.nextID
	c.nextID++
	return id
}

// noteDB gives a new schema its ID (TiDB takes schema and table IDs from one
// allocator). The caller holds mu or owns c.
func (c *cluster) noteDB(name string) *dbInfo {
	if name == "" {
		return nil
	}
	if d, ok := c.dbs[strings.ToLower(name)]; ok {
		return d
	}
	d := &dbInfo{id: c.nextMetaID, name: name}
	c.nextMetaID++
	c.dbs[strings.ToLower(name)] = d
	return d
}

func (c *cluster) store(id uint64) *store {
	for _, s := range c.stores {
		if s.id == id {
			return s
		}
	}
	return nil
}

var storeStates = []string{"Up", "Disconnected", "Down", "Offline", "Tombstone"}

func (c *cluster) setStoreState(id uint64, state string, now time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	canon := ""
	for _, s := range storeStates {
		if strings.EqualFold(s, state) {
			canon = s
		}
	}
	if canon == "" {
		return fmt.Errorf("store state %q is none of %s", state, strings.Join(storeStates, ", "))
	}
	st := c.store(id)
	if st == nil {
		return fmt.Errorf("no store %d (stores are 1..%d)", id, len(c.stores))
	}
	if st.state == "Tombstone" && canon != "Tombstone" {
		return fmt.Errorf("store %d is Tombstone and cannot come back", id)
	}
	st.state = canon
	switch canon {
	case "Down":
		st.heartbeat = now.Add(-30 * time.Minute) // past PD's max-store-down-time
	case "Disconnected":
		st.heartbeat = now.Add(-20 * time.Second)
	case "Up", "Offline":
		st.started, st.heartbeat = now, now
	}
	for _, r := range c.regions {
		if canon == "Tombstone" {
			c.replacePeers(r, id)
		}
		c.electLeader(r)
	}
	return nil
}

// replacePeers removes the region's peer on store gone and adds one on an Up
// store the region has no peer on, as PD does before a store becomes
// Tombstone.
func (c *cluster) replacePeers(r *region, gone uint64) {
	for i, p := range r.peers {
		if p.store != gone {
			continue
		}
		r.peers = append(r.peers[:i:i], r.peers[i+1:]...)
		r.confVer++
		for _, s := range c.stores {
			if s.state == "Up" && !r.hasStore(s.id) {
				r.peers = append(r.peers, peer{id: c.alloc(), store: s.id})
				r.confVer++
				break
			}
		}
		return
	}
}

func (r *region) hasStore(id uint64) bool {
	for _, p := range r.peers {
		if p.store == id {
			return true
		}
	}
	return false
}

// electLeader moves a region's leadership off a store that cannot serve, to
// its first peer on one that can.
func (c *cluster) electLeader(r *region) {
	for _, p := range r.peers {
		if p.id == r.leader {
			if s := c.store(p.store); s != nil && s.serving() {
				return
			}
		}
	}
	for _, p := range r.peers {
		if s := c.store(p.store); s != nil && s.serving() {
			r.leader = p.id
			return
		}
	}
}

// place gives a new region its peers and leader: min(replicas, Up stores)
// stores taken round-robin, the first one leading, which spreads Regions and
// leaders the way PD's balance schedulers leave them.
func (c *cluster) place(r *region) {
	var cands []*store
	for _, s := range c.stores {
		if s.state == "Up" {
			cands = append(cands, s)
		}
	}
	if len(cands) == 0 {
		for _, s := range c.stores {
			if s.serving() {
				cands = append(cands, s)
			}
		}
	}
	n := c.opts.Replicas
	if n > len(cands) {
		n = len(cands)
	}
	r.peers = nil
	for i := 0; i < n; i++ {
		s := cands[(c.rr+i)%len(cands)]
		r.peers = append(r.peers, peer{id: c.alloc(), store: s.id})
	}
	c.rr++
	if len(r.peers) > 0 {
		r.leader = r.peers[0].id
	}
	r.confVer = uint64(len(r.peers))
}

// regionAt is the index of the region containing key.
func (c *cluster) regionAt(key []byte) int {
	i := sort.Search(len(c.regions), func(i int) bool { return bytes.Compare(c.regions[i].start, key) > 0 })
	return i - 1
}

// split splits Regions at keys and returns how many Regions it created. A
// key that already starts a Region creates none. The left part of a split
// is the new Region; the old one keeps the right part (TiKV's right-derive).
func (c *cluster) split(keys [][]byte) int {
	keys = append([][]byte(nil), keys...)
	sort.Slice(keys, func(i, j int) bool { return bytes.Compare(keys[i], keys[j]) < 0 })
	created := 0
	for i, k := range keys {
		if len(k) == 0 || (i > 0 && bytes.Equal(k, keys[i-1])) {
			continue
		}
		at := c.regionAt(k)
		old := c.regions[at]
		if bytes.Equal(old.start, k) {
			continue
		}
		nr := &region{id: c.alloc(), start: old.start, end: k, version: old.version + 1}
		c.place(nr)
		old.start = k
		old.version++
		c.regions = append(c.regions, nil)
		copy(c.regions[at+1:], c.regions[at:])
		c.regions[at] = nr
		created++
	}
	return created
}

// regionStats are a Region's approximate keys and bytes from the last scans
// of the tables whose keys it holds.
func (c *cluster) regionStats(r *region) (keys, size int64) {
	for _, t := range c.tables {
		if t.stats == nil || !r.overlaps(tablePrefix(t.id), tablePrefix(t.id+1)) {
			continue
		}
		kvs := t.stats.kvs
		i := sort.Search(len(kvs), func(i int) bool { return bytes.Compare(kvs[i].key, r.start) >= 0 })
		for ; i < len(kvs) && r.contains(kvs[i].key); i++ {
			keys++
			size += int64(kvs[i].size)
		}
	}
	return keys, size
}

// approximateMB is PD's APPROXIMATE_SIZE: megabytes, at least 1.
func approximateMB(size int64) int64 {
	if mb := size >> 20; mb > 1 {
		return mb
	}
	return 1
}

// regionTable is one (table, record or index) a Region holds keys of, as
// TIKV_REGION_STATUS lists them.
type regionTable struct {
	table *tableInfo
	index *indexInfo // nil for records
}

// regionTables lists what r holds: each live table's record range and each
// of its index ranges that r overlaps, ordered by table ID.
func (c *cluster) regionTables(r *region) []regionTable {
	var out []regionTable
	for _, t := range c.liveTables() {
		rp := recordPrefix(t.id)
		if r.overlaps(rp, prefixNext(rp)) {
			out = append(out, regionTable{table: t})
		}
		for _, ix := range t.indexes {
			ip := indexPrefix(t.id, ix.id)
			if r.overlaps(ip, prefixNext(ip)) {
				out = append(out, regionTable{table: t, index: ix})
			}
		}
	}
	return out
}

func (c *cluster) liveTables() []*tableInfo {
	out := make([]*tableInfo, 0, len(c.tables))
	for _, t := range c.tables {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

func (c *cluster) setVars(conn uint32, assigns []varAssign) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, a := range assigns {
		if a.global {
			c.globals[a.name] = a.value
			continue
		}
		if c.session[conn] == nil {
			c.session[conn] = map[string]string{}
		}
		c.session[conn][a.name] = a.value
	}
}
