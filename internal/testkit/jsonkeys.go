package testkit

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// JSONKeyOrders returns the keys of every object of a JSON document in
// the order they are written, by the object's path ("$", "$.fields[0]",
// "$.value[2].address", …): what a test compares when an answer's key
// order is part of what it checks.
func JSONKeyOrders(b []byte) (map[string][]string, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	out := map[string][]string{}
	var walk func(path string) error
	walk = func(path string) error {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			out[path] = []string{}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				out[path] = append(out[path], k)
				if err := walk(path + "." + k); err != nil {
					return err
				}
			}
			_, err = d.Token()
			return err
		case json.Delim('['):
			for i := 0; d.More(); i++ {
				if err := walk(fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
			_, err = d.Token()
			return err
		}
		return nil
	}
	return out, walk("$")
}
