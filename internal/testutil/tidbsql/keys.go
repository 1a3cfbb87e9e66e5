package tidbsql

import (
	"encoding/binary"
	"encoding/hex"
	"strings"
)

// TiDB's key layout (tablecodec): a table's keys start with 't' and its ID;
// records continue with "_r" and the handle, index entries with "_i", the
// index ID and the indexed values. Integers are 8 bytes big-endian with the
// sign bit flipped, so byte order is numeric order. PD keeps Region
// boundaries in TiKV's memcomparable form of these keys.

const signMask = uint64(1) << 63

func encodeInt(b []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(b, uint64(v)^signMask)
}

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
