package search

import "strings"

// Azure's naming rules (https://learn.microsoft.com/rest/api/searchservice/naming-rules).

func isLower(c byte) bool  { return c >= 'a' && c <= 'z' }
func isUpper(c byte) bool  { return c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return isLower(c) || isUpper(c) }
func isAlnum(c byte) bool  { return isLetter(c) || isDigit(c) }

// lowerOrDigit is a lower-case letter or a digit.
func lowerOrDigit(c byte) bool { return isLower(c) || isDigit(c) }

// objectChar may appear in a data source, indexer, synonym map or
// skillset name.
func objectChar(c byte) bool { return lowerOrDigit(c) || c == '-' }

func fieldChar(c byte) bool { return isAlnum(c) || c == '_' }

func componentChar(c byte) bool { return isAlnum(c) || c == '_' || c == '-' || c == '.' }

// validIndexName: 2–128 lower-case letters, digits, dashes and
// underscores; the first a letter or digit; no two dashes or underscores
// in a row.
func validIndexName(name string) bool {
	if len(name) < 2 || len(name) > 128 || !lowerOrDigit(name[0]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case isLower(c) || isDigit(c):
		case c == '-' || c == '_':
			if i > 0 && (name[i-1] == '-' || name[i-1] == '_') {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// validObjectName is the rule of data sources, indexers, synonym maps and
// skillsets: 1–128 lower-case letters, digits and dashes, starting and
// ending with a letter or digit.
func validObjectName(name string) bool {
	if len(name) < 1 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !objectChar(c) {
			return false
		}
	}
	return name[0] != '-' && name[len(name)-1] != '-'
}

// validFieldName: 1–128 letters, digits and underscores, starting with a
// letter, and not starting with "azureSearch" (reserved for the service).
func validFieldName(name string) bool {
	if len(name) < 1 || len(name) > 128 || !isLetter(name[0]) || strings.HasPrefix(name, "azureSearch") {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !fieldChar(name[i]) {
			return false
		}
	}
	return true
}

// validComponentName is the rule of suggesters, scoring profiles, vector
// profiles and analysis components: 1–128 letters, digits, dashes,
// underscores and periods, starting with a letter or digit.
func validComponentName(name string) bool {
	if len(name) < 1 || len(name) > 128 || !isAlnum(name[0]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !componentChar(name[i]) {
			return false
		}
	}
	return true
}

// checkName refuses a resource name its kind's rule does not allow.
func checkName(kind Kind, name string) error {
	if name == "" {
		return invalid(kind.singular(), "The %s name is missing.", kind.label())
	}
	ok := validObjectName(name)
	if kind == Aliases && !ok {
		// Aliases follow the rule of data sources and the like, refused
		// with a code of their own (the Java SDK's recording
		// SearchAliasTests.cannotCreateAliasWithInvalidNameSync).
		const rule = "Index alias name must only contain lowercase letters, digits or dashes, cannot start or end with dashes and is limited to 128 characters."
		return invalidDetailed("InvalidName", "InvalidIndexAliasName", "alias", rule)
	}
	rule := "Names must start and end with a lower-case letter or digit, contain only lower-case letters, digits or dashes, and be at most 128 characters long"
	if kind == Indexes {
		ok = validIndexName(name)
		rule = "Names must start with a lower-case letter or digit, contain only lower-case letters, digits, dashes or underscores with no two dashes or underscores in a row, and be 2 to 128 characters long"
	}
	if !ok {
		return invalid(kind.singular(), "Invalid %s name '%s'. %s.", kind.label(), name, rule)
	}
	return nil
}

func fieldNameError(where, name string) error {
	return invalid(where, "Invalid field name: '%s'. Field names must begin with a letter and can contain only letters, digits, or underscore ('_'), must not start with 'azureSearch', and can be at most 128 characters long.", name)
}

func componentNameError(where, what, name string) error {
	return invalid(where, "Invalid %s name: '%s'. Names must start with a letter or digit, contain only letters, digits, dashes, underscores or periods, and be at most 128 characters long.", what, name)
}
