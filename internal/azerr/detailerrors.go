package azerr

import (
	"net/http"
	"strconv"
)

// Detail is one extra element of an Azure error document, written after
// Message (e.g. <HeaderName>x-ms-range</HeaderName>).
type Detail struct{ Name, Value string }

// WithDetails returns a copy of e carrying Azure's detail elements.
func (e *Error) WithDetails(details ...Detail) *Error {
	c := *e
	c.Details = append(append([]Detail(nil), e.Details...), details...)
	return &c
}

// Detail returns the value of the named detail element, "" when absent.
func (e *Error) Detail(name string) string {
	for _, d := range e.Details {
		if d.Name == name {
			return d.Value
		}
	}
	return ""
}

// The parameterised errors Azure sends with the offending input named.

// InvalidHeaderValue: a header's value is malformed or out of range.
func InvalidHeaderValue(name, value string) *Error {
	return ErrInvalidHeaderValue.WithDetails(Detail{"HeaderName", name}, Detail{"HeaderValue", value})
}

// MissingRequiredHeader: a header the operation needs was not sent.
func MissingRequiredHeader(name string) *Error {
	return ErrMissingRequiredHeader.WithDetails(Detail{"HeaderName", name})
}

// UnsupportedHeader: a header the operation does not take (with a value
// it cannot honour) was sent.
func UnsupportedHeader(name, value string) *Error {
	return ErrUnsupportedHeader.WithDetails(Detail{"HeaderName", name}, Detail{"HeaderValue", value})
}

// InvalidQueryParameterValue: a query parameter's value is malformed;
// reason ("" for none) says why.
func InvalidQueryParameterValue(name, value, reason string) *Error {
	e := ErrInvalidQueryParameterValue.WithDetails(Detail{"QueryParameterName", name}, Detail{"QueryParameterValue", value})
	if reason != "" {
		e.Details = append(e.Details, Detail{"Reason", reason})
	}
	return e
}

// OutOfRangeQueryParameterValue: a numeric query parameter is outside
// [lo, hi].
func OutOfRangeQueryParameterValue(name, value string, lo, hi int64) *Error {
	return ErrOutOfRangeQueryParameterValue.WithDetails(Detail{"QueryParameterName", name}, Detail{"QueryParameterValue", value},
		Detail{"MinimumAllowed", strconv.FormatInt(lo, 10)}, Detail{"MaximumAllowed", strconv.FormatInt(hi, 10)})
}

// MissingRequiredQueryParameter: a query parameter the operation needs
// was not sent.
func MissingRequiredQueryParameter(name string) *Error {
	return ErrMissingRequiredQueryParameter.WithDetails(Detail{"QueryParameterName", name})
}

// InvalidXmlNodeValue: an element of the request body has a bad value.
func InvalidXmlNodeValue(node, value string) *Error {
	return ErrInvalidXmlNodeValue.WithDetails(Detail{"XmlNodeName", node}, Detail{"XmlNodeValue", value})
}

// MissingRequiredXmlNode: an element the request body needs is absent.
func MissingRequiredXmlNode(node string) *Error {
	return ErrMissingRequiredXmlNode.WithDetails(Detail{"XmlNodeName", node})
}

// UnroutedOperation answers a request whose method, restype and comp name
// no operation on the addressed resource: an unknown verb is
// UnsupportedHttpVerb, anything else the query parameter that failed to
// select an operation.
func UnroutedOperation(method, restype, comp string) *Error {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodPost:
	default:
		return ErrUnsupportedHttpVerb
	}
	param, value := "comp", comp
	if comp == "" {
		param, value = "restype", restype
	}
	return InvalidQueryParameterValue(param, value, "").WithMessage("The requested operation (%s with restype=%q comp=%q) is not valid for this resource.", method, restype, comp)
}
