// A workload written outside starbench's module, against its public API
// only: `make test` runs its test, which go test ./... in starbench
// would skip (a nested module).
module example.com/extworkload

go 1.26.8

require github.com/starbench/starbench v0.0.0

require (
	filippo.io/edwards25519 v1.2.0 // indirect
	github.com/HdrHistogram/hdrhistogram-go v1.4.0 // indirect
	github.com/go-sql-driver/mysql v1.10.1 // indirect
	github.com/tetratelabs/wazero v1.12.0 // indirect
)

replace github.com/starbench/starbench => ../..
