package table

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

const annotationSuffix = "@odata.type"

// entityBody is a parsed request entity: its keys when the body names
// them, and its user properties in the order sent.
type entityBody struct {
	PartitionKey, RowKey       string
	HasPartitionKey, HasRowKey bool
	Properties                 []Property
}

// jsonMember is one name/value pair of the body's object, in order.
type jsonMember struct {
	name  string
	value any // string, json.Number, bool or nil
}

// parseEntityJSON reads an entity in the Table service's JSON format:
// one object whose members are properties, "<name>@odata.type" annotations
// giving a property's EDM type, and odata.* metadata (ignored). A value
// without an annotation is a String, Boolean, Int32 (an integer that fits)
// or Double (any other number). Null values are skipped, as Azure skips
// them; Timestamp is server-set and ignored.
func parseEntityJSON(body []byte) (*entityBody, error) {
	members, err := readObject(body)
	if err != nil {
		return nil, err
	}
	types := map[string]string{}
	for _, m := range members {
		if name, ok := strings.CutSuffix(m.name, annotationSuffix); ok {
			t, isString := m.value.(string)
			if !isString {
				return nil, invalidInput("The type annotation of property %q is not a string.", name)
			}
			types[name] = t
		}
	}
	out := &entityBody{}
	for _, m := range members {
		if strings.HasSuffix(m.name, annotationSuffix) || strings.HasPrefix(m.name, "odata.") {
			continue
		}
		typeName, annotated := types[m.name]
		switch m.name {
		case "PartitionKey", "RowKey":
			s, ok := m.value.(string)
			if !ok || annotated && typeName != odata.String.String() {
				if m.value == nil {
					return nil, azerr.ErrPropertiesNeedValue.WithMessage("The %s property needs a value.", m.name)
				}
				return nil, invalidInput("The %s property must be a string.", m.name)
			}
			if err := validateKey(m.name, s); err != nil {
				return nil, err
			}
			if m.name == "PartitionKey" {
				out.PartitionKey, out.HasPartitionKey = s, true
			} else {
				out.RowKey, out.HasRowKey = s, true
			}
			continue
		case "Timestamp":
			continue
		}
		if err := validatePropertyName(m.name); err != nil {
			return nil, err
		}
		if m.value == nil {
			continue
		}
		v, err := jsonValue(m.name, m.value, typeName, annotated)
		if err != nil {
			return nil, err
		}
		if err := validateValue(m.name, v); err != nil {
			return nil, err
		}
		out.Properties = append(out.Properties, Property{Name: m.name, Value: v})
	}
	if len(out.Properties) > maxProperties {
		return nil, azerr.ErrTooManyProperties.WithMessage("The entity contains more properties than allowed. Each entity can include up to %d properties to store data. Each entity also has 3 system properties.", maxProperties)
	}
	return out, nil
}

func invalidInput(format string, args ...any) error {
	return azerr.ErrInvalidInput.WithMessage(format, args...)
}

// jsonValue converts one JSON value to its EDM value.
func jsonValue(name string, raw any, typeName string, annotated bool) (odata.Value, error) {
	bad := func() (odata.Value, error) {
		if annotated {
			return odata.Value{}, invalidInput("The value of property %q is not a valid %s.", name, typeName)
		}
		return odata.Value{}, invalidInput("The value of property %q is not valid.", name)
	}
	if !annotated {
		switch v := raw.(type) {
		case string:
			return odata.StringValue(v), nil
		case bool:
			return odata.BoolValue(v), nil
		case json.Number:
			s := string(v)
			if !strings.ContainsAny(s, ".eE") {
				if n, err := strconv.ParseInt(s, 10, 32); err == nil {
					return odata.Int32Value(int32(n)), nil
				}
			}
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsInf(f, 0) {
				return bad()
			}
			return odata.DoubleValue(f), nil
		}
		return bad()
	}
	t, ok := odata.ParseType(typeName)
	if !ok {
		return odata.Value{}, invalidInput("The type %q of property %q is not a supported EDM type.", typeName, name)
	}
	text, isString := raw.(string)
	num, isNumber := raw.(json.Number)
	switch t {
	case odata.String:
		if isString {
			return odata.StringValue(text), nil
		}
	case odata.Boolean:
		if b, ok := raw.(bool); ok {
			return odata.BoolValue(b), nil
		}
		// Azure reads a typed Boolean's text in any case ("TRUE", as
		// spreadsheets write it).
		if lt := strings.ToLower(text); isString && (lt == "true" || lt == "false") {
			return odata.BoolValue(lt == "true"), nil
		}
	case odata.Int32:
		if isNumber {
			text = string(num)
		}
		if isNumber || isString {
			if n, err := strconv.ParseInt(text, 10, 32); err == nil {
				return odata.Int32Value(int32(n)), nil
			}
		}
	case odata.Int64:
		if isNumber {
			text = string(num)
		}
		if isNumber || isString {
			if n, err := strconv.ParseInt(text, 10, 64); err == nil {
				return odata.Int64Value(n), nil
			}
		}
	case odata.Double:
		if isNumber {
			text = string(num)
		}
		if isNumber || isString {
			if f, err := odata.ParseDouble(text); err == nil {
				return odata.DoubleValue(f), nil
			}
		}
	case odata.DateTime:
		if isString {
			if ticks, err := odata.ParseDateTime(text); err == nil {
				return odata.DateTimeValue(ticks), nil
			}
		}
	case odata.Guid:
		if isString {
			if g, err := odata.ParseGuid(text); err == nil {
				return g, nil
			}
		}
	case odata.Binary:
		if isString {
			if b, err := base64.StdEncoding.DecodeString(text); err == nil {
				return odata.BinaryValue(b), nil
			}
		}
	}
	return bad()
}

// metadataLevel is how much OData metadata a JSON response carries.
type metadataLevel int

const (
	noMetadata metadataLevel = iota
	minimalMetadata
	fullMetadata
)

func (l metadataLevel) contentType() string {
	switch l {
	case noMetadata:
		return "application/json;odata=nometadata;streaming=true;charset=utf-8"
	case fullMetadata:
		return "application/json;odata=fullmetadata;streaming=true;charset=utf-8"
	}
	return "application/json;odata=minimalmetadata;streaming=true;charset=utf-8"
}

// annotate reports whether a value of type t (special says a Double is
// NaN or infinite, sent as a string) carries @odata.type at level.
// Minimal metadata annotates what JSON cannot tell apart: Int64 (sent as
// a string), DateTime, Guid, Binary and the string forms of Double. Full
// metadata annotates the same: Azure's readers, the Go SDK among them,
// take an unannotated integer for Int32 and a fraction for Double.
func (l metadataLevel) annotate(t odata.Type, special bool) bool {
	if l == noMetadata {
		return false
	}
	switch t {
	case odata.Int64, odata.DateTime, odata.Guid, odata.Binary:
		return true
	case odata.Double:
		return special
	}
	return false
}

// appendValue appends v's JSON value.
func appendValue(b []byte, v odata.Value) []byte {
	switch v.Type {
	case odata.String, odata.Guid:
		return appendJSONString(b, v.Str)
	case odata.Int32:
		return strconv.AppendInt(b, v.Num, 10)
	case odata.Int64:
		b = append(b, '"')
		b = strconv.AppendInt(b, v.Num, 10)
		return append(b, '"')
	case odata.Double:
		text, special := odata.FormatDouble(v.Float)
		if special {
			return appendJSONString(b, text)
		}
		return append(b, text...)
	case odata.Boolean:
		return strconv.AppendBool(b, v.Bool())
	case odata.DateTime:
		return appendJSONString(b, odata.FormatDateTime(v.Num))
	case odata.Binary:
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, []byte(v.Str))
		return append(b, '"')
	}
	return append(b, "null"...)
}

// appendProperty appends `"name":value`, preceded by its annotation when
// level calls for one, and a leading comma unless first.
func appendProperty(b []byte, name string, v odata.Value, level metadataLevel) []byte {
	special := false
	if v.Type == odata.Double {
		_, special = odata.FormatDouble(v.Float)
	}
	if level.annotate(v.Type, special) {
		b = append(b, ',')
		b = appendJSONString(b, name+annotationSuffix)
		b = append(b, ':')
		b = appendJSONString(b, v.Type.String())
	}
	b = append(b, ',')
	b = appendJSONString(b, name)
	b = append(b, ':')
	return appendValue(b, v)
}

// appendJSONString appends s as a JSON string. Invalid UTF-8 becomes
// U+FFFD; HTML characters are left alone (this is not HTML).
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, `\u202`...)
			b = append(b, hexDigits[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
