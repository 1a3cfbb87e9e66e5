package snapshot

// SameChecksum is sameChecksum, for the tests.
var SameChecksum = sameChecksum
