package main

import (
	"fmt"
	"strconv"
)

// maxConnections bounds each HTTP listener's open connections; 0, the
// value when the flag is not given, is server.DefaultMaxConnections.
type maxConnections int

func (m *maxConnections) String() string { return strconv.Itoa(int(*m)) }

func (m *maxConnections) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return fmt.Errorf("not a number of connections (1 or more)")
	}
	*m = maxConnections(n)
	return nil
}
