// Command tiup is the test stand-in for tiup (package tiupstub): tests
// build it and put it where plans look for tiup. It is not tiup.
package main

import (
	"os"

	"github.com/starbench/starbench/internal/testutil/tiupstub"
)

func main() {
	os.Exit(tiupstub.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
