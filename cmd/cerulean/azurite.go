package main

import (
	"errors"
	"flag"
	"sort"
	"strings"
)

// Azurite's command-line spellings, so that scripts and tools written to
// launch Azurite can launch cerulean: each is an alias of the cerulean
// flag with the same setting, accepted with a note when cerulean always
// behaves as the flag asks, or refused with what to use instead — never
// silently ignored.

// azuriteAliases maps an Azurite flag to the cerulean flag it sets.
var azuriteAliases = map[string]string{
	"blobPort":            "blob-port",
	"queuePort":           "queue-port",
	"tablePort":           "table-port",
	"blobHost":            "host",
	"queueHost":           "host",
	"tableHost":           "host",
	"location":            "data",
	"l":                   "data",
	"inMemoryPersistence": "in-memory",
	// --cert and --key are spelt alike in both.
}

// azuriteAlways are Azurite switches asking for what cerulean always does.
var azuriteAlways = map[string]string{
	"skipApiVersionCheck": "cerulean accepts every well-formed x-ms-version; --skipApiVersionCheck changes nothing",
	"loose":               "cerulean has no strict mode to loosen; --loose changes nothing",
}

// azuriteRefused are Azurite flags with no cerulean equivalent, and what
// to do instead.
var azuriteRefused = map[string]struct {
	boolean bool
	why     string
}{
	"pwd":    {false, "cerulean takes an unencrypted PEM certificate and key (--cert and --key); convert a PFX with openssl pkcs12 -nodes"},
	"oauth":  {false, "cerulean authenticates with Shared Key and SAS only; use the account key (cerulean connection-strings prints it)"},
	"debug":  {false, "use --log-level debug (cerulean logs to stderr; redirect it to keep a file)"},
	"d":      {false, "use --log-level debug (cerulean logs to stderr; redirect it to keep a file)"},
	"silent": {true, "use --log-level warn"},
	"s":      {true, "use --log-level warn"},
}

// addAzuriteFlags registers Azurite's spellings on fs; the notes of the
// ones that change nothing fill the returned slice as they are given.
func addAzuriteFlags(fs *flag.FlagSet, f *serveFlags) *[]string {
	for azurite, cerulean := range azuriteAliases {
		target := fs.Lookup(cerulean)
		fs.Var(target.Value, azurite, "Azurite's spelling of --"+cerulean)
	}
	notes := new([]string)
	for name, note := range azuriteAlways {
		fs.Var(&noteFlag{note: note, notes: notes}, name, note)
	}
	for name, r := range azuriteRefused {
		fs.Var(&refusedFlag{why: r.why, boolean: r.boolean}, name, "Azurite's --"+name+": refused; "+r.why)
	}
	return notes
}

// isAzuriteFlag tells Azurite's spellings from cerulean's own.
func isAzuriteFlag(name string) bool {
	_, alias := azuriteAliases[name]
	_, always := azuriteAlways[name]
	_, refused := azuriteRefused[name]
	return alias || always || refused
}

// azuriteAliasList is "--blobPort (--blob-port), ..." for the help text.
func azuriteAliasList() string {
	var parts []string
	for azurite, cerulean := range azuriteAliases {
		parts = append(parts, "--"+azurite+" (--"+cerulean+")")
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ") + ", --cert, --key; --skipApiVersionCheck and --loose change nothing"
}

// printFlags prints fs's own flags as flag.PrintDefaults does, without
// Azurite's spellings.
func printFlags(fs *flag.FlagSet) {
	own := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	own.SetOutput(fs.Output())
	fs.VisitAll(func(fl *flag.Flag) {
		if isAzuriteFlag(fl.Name) {
			return
		}
		own.Var(fl.Value, fl.Name, fl.Usage)
		own.Lookup(fl.Name).DefValue = fl.DefValue
	})
	own.PrintDefaults()
}

// noteFlag is an Azurite switch that changes nothing here; giving it
// leaves a note for the log.
type noteFlag struct {
	note  string
	notes *[]string
}

func (n *noteFlag) String() string { return "false" }

func (n *noteFlag) IsBoolFlag() bool { return true }

func (n *noteFlag) Set(s string) error {
	var b boolean
	if err := b.Set(s); err != nil {
		return err
	}
	if b {
		*n.notes = append(*n.notes, n.note)
	}
	return nil
}

// refusedFlag is an Azurite flag cerulean has no setting for.
type refusedFlag struct {
	why     string
	boolean bool
}

func (r *refusedFlag) String() string { return "" }

func (r *refusedFlag) IsBoolFlag() bool { return r.boolean }

func (r *refusedFlag) Set(string) error {
	return errors.New("an Azurite flag cerulean has no setting for: " + r.why)
}
