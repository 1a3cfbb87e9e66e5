package tidbsql

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
)

// TiDB's key layout (tablecodec): a table's keys start with 't' and its ID;
// records continue with "_r" and the handle, index entries with "_i", the
// index ID and the indexed values. Integers are 8 bytes big-endian with the
// sign bit flipped, so byte order is numeric order. PD keeps Region
// boundaries in TiKV's memcomparable form of these keys.

const (
	minInt64 = math.MinInt64
	maxInt64 = math.MaxInt64
	signMask = uint64(1) << 63
)

func encodeInt(b []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(b, uint64(v)^signMask)
}

func decodeInt(b []byte) int64 { return int64(binary.BigEndian.Uint64(b) ^ signMask) }

func tablePrefix(id int64) []byte { return encodeInt([]byte{'t'}, id) }

func recordPrefix(id int64) []byte { return append(tablePrefix(id), '_', 'r') }

func recordKey(id, handle int64) []byte { return encodeInt(recordPrefix(id), handle) }

func indexPrefix(id, index int64) []byte {
	return encodeInt(append(tablePrefix(id), '_', 'i'), index)
}

// prefixNext is the smallest key greater than every key starting with p.
func prefixNext(p []byte) []byte {
	out := append([]byte(nil), p...)
	for i := len(out) - 1; i >= 0; i-- {
		out[i]++
		if out[i] != 0 {
			return out
		}
	}
	return append(append([]byte(nil), p...), 0)
}

// encodeBytes is TiKV's memcomparable encoding: groups of 8 bytes, the last
// padded with zeros, each followed by 0xFF minus the padding length.
func encodeBytes(b []byte) []byte {
	out := make([]byte, 0, (len(b)/8+1)*9)
	for i := 0; i <= len(b); i += 8 {
		group := make([]byte, 8)
		n := copy(group, b[i:])
		out = append(out, group...)
		out = append(out, byte(0xFF-(8-n)))
	}
	return out
}

// pdKey is a Region boundary as PD's API and TIKV_REGION_STATUS show it:
// upper-case hex of the encoded key, "" for infinity.
func pdKey(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	return strings.ToUpper(hex.EncodeToString(encodeBytes(raw)))
}

// showKey is a Region boundary as SHOW TABLE REGIONS prints it for table
// tid (and index ix, when listing an index's Regions): t_45_r_1000,
// t_45_i_1_<hex>, t_45_<hex> for other keys of the table, t_46_ for the next
// table, "" for infinity.
func showKey(key []byte, tid int64, ix *indexInfo) string {
	if ix != nil {
		if ip := indexPrefix(tid, ix.id); bytes.HasPrefix(key, ip) {
			return fmt.Sprintf("t_%d_i_%d_%x", tid, ix.id, key[len(ip):])
		}
	}
	if rp := recordPrefix(tid); bytes.HasPrefix(key, rp) {
		rest := key[len(rp):]
		if len(rest) == 0 {
			return fmt.Sprintf("t_%d_r", tid)
		}
		if len(rest) >= 8 {
			return fmt.Sprintf("t_%d_r_%d", tid, decodeInt(rest[:8]))
		}
	}
	if tp := tablePrefix(tid); bytes.HasPrefix(key, tp) {
		rest := key[len(tp):]
		if !bytes.HasPrefix(rest, []byte("_i")) {
			return fmt.Sprintf("t_%d_%x", tid, rest)
		}
		rest = rest[2:]
		if len(rest) >= 8 {
			return fmt.Sprintf("t_%d_i_%d_%x", tid, decodeInt(rest[:8]), rest[8:])
		}
		return fmt.Sprintf("t_%d_i__%x", tid, rest)
	}
	if len(key) >= 9 && key[0] == 't' {
		return fmt.Sprintf("t_%d_%x", decodeInt(key[1:9]), key[9:])
	}
	if len(key) > 0 && key[0] == 't' {
		return fmt.Sprintf("t_%x", key[1:])
	}
	return fmt.Sprintf("%x", key)
}
