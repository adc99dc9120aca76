package svcprops

import (
	"encoding/xml"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// MaxCORSRules is Azure's limit of CORS rules per service.
const MaxCORSRules = 5

// ServiceProperties is the Get/Set Service Properties document shared by
// Blob, Queue, Table and File. Elements absent from a Set leave the stored
// ones as they are (Merge).
type ServiceProperties struct {
	XMLName               xml.Name          `xml:"StorageServiceProperties"`
	Logging               *LoggingXML       `xml:"Logging,omitempty"`
	HourMetrics           *MetricsXML       `xml:"HourMetrics,omitempty"`
	MinuteMetrics         *MetricsXML       `xml:"MinuteMetrics,omitempty"`
	Cors                  *CorsXML          `xml:"Cors,omitempty"`
	DefaultServiceVersion string            `xml:"DefaultServiceVersion,omitempty"`
	DeleteRetentionPolicy *RetentionXML     `xml:"DeleteRetentionPolicy,omitempty"`
	StaticWebsite         *StaticWebsiteXML `xml:"StaticWebsite,omitempty"`
	ProtocolSettings      *ProtocolsXML     `xml:"ProtocolSettings,omitempty"`
}

// ProtocolsXML is the File service's ProtocolSettings element. Azure
// answers it in every Get File Service Properties, SMB Multichannel off
// until set, and some clients fail without it (the az CLI's Python
// fileshare models need it for `az storage cors list`).
type ProtocolsXML struct {
	SMB *SMBXML `xml:"SMB,omitempty"`
}

// SMBXML is the SMB element of ProtocolSettings.
type SMBXML struct {
	Multichannel *MultichannelXML `xml:"Multichannel,omitempty"`
}

// MultichannelXML is the Multichannel element of the SMB settings.
type MultichannelXML struct {
	Enabled bool `xml:"Enabled"`
}

// RetentionXML is a retention policy element.
type RetentionXML struct {
	Enabled              bool  `xml:"Enabled"`
	Days                 *int  `xml:"Days,omitempty"`
	AllowPermanentDelete *bool `xml:"AllowPermanentDelete,omitempty"`
}

// LoggingXML is the Logging element, its children in the order Azure
// writes them (Version, Read, Write, Delete).
type LoggingXML struct {
	Version         string       `xml:"Version"`
	Read            bool         `xml:"Read"`
	Write           bool         `xml:"Write"`
	Delete          bool         `xml:"Delete"`
	RetentionPolicy RetentionXML `xml:"RetentionPolicy"`
}

// MetricsXML is the HourMetrics / MinuteMetrics element.
type MetricsXML struct {
	Version         string       `xml:"Version"`
	Enabled         bool         `xml:"Enabled"`
	IncludeAPIs     *bool        `xml:"IncludeAPIs,omitempty"`
	RetentionPolicy RetentionXML `xml:"RetentionPolicy"`
}

// CorsXML is the Cors element.
type CorsXML struct {
	Rules []CorsRuleXML `xml:"CorsRule"`
}

// CorsRuleXML is one CorsRule, with comma-separated lists, its children
// in the order Azure writes them (AllowedMethods, AllowedOrigins,
// AllowedHeaders, ExposedHeaders, MaxAgeInSeconds).
type CorsRuleXML struct {
	AllowedMethods  string `xml:"AllowedMethods"`
	AllowedOrigins  string `xml:"AllowedOrigins"`
	AllowedHeaders  string `xml:"AllowedHeaders"`
	ExposedHeaders  string `xml:"ExposedHeaders"`
	MaxAgeInSeconds int    `xml:"MaxAgeInSeconds"`
}

// StaticWebsiteXML is the Blob service's StaticWebsite element.
type StaticWebsiteXML struct {
	Enabled                  bool   `xml:"Enabled"`
	IndexDocument            string `xml:"IndexDocument,omitempty"`
	ErrorDocument404Path     string `xml:"ErrorDocument404Path,omitempty"`
	DefaultIndexDocumentPath string `xml:"DefaultIndexDocumentPath,omitempty"`
}

// DefaultServiceProperties is what a service has before any Set ("blob",
// "queue", "table" or "file").
func DefaultServiceProperties(service string) ServiceProperties {
	p := ServiceProperties{
		Logging:       &LoggingXML{Version: "1.0"},
		HourMetrics:   &MetricsXML{Version: "1.0"},
		MinuteMetrics: &MetricsXML{Version: "1.0"},
		Cors:          &CorsXML{},
	}
	if service == "queue" || service == "table" {
		// A new account's Queue and Table services record hourly metrics,
		// API by API, kept seven days, as Azure documents ("Enabling and
		// Configuring Storage Analytics") and the Get Service Properties
		// of a fresh account in the azqueue and aztables recordings show.
		include, days := true, 7
		p.HourMetrics = &MetricsXML{Version: "1.0", Enabled: true, IncludeAPIs: &include, RetentionPolicy: RetentionXML{Enabled: true, Days: &days}}
	}
	if service == "blob" {
		p.DeleteRetentionPolicy = &RetentionXML{}
		p.StaticWebsite = &StaticWebsiteXML{}
	}
	if service == "file" {
		// Java's FileServiceApiTests.setAndGetProperties recording: a Get
		// answers HourMetrics, MinuteMetrics, Cors and ProtocolSettings with
		// Multichannel off, also after a Set that named no ProtocolSettings.
		p.Logging = nil
		p.ProtocolSettings = &ProtocolsXML{SMB: &SMBXML{Multichannel: &MultichannelXML{}}}
	}
	return p
}

// Validate checks a Set document against Azure's limits: retention
// policies keep 1 to 365 days (and name them when enabled), and at most
// five CORS rules, each with known methods, at most 64 origins, 64 literal
// and 2 prefixed headers per list, and a non-negative MaxAgeInSeconds.
func (p ServiceProperties) Validate() error {
	type policy struct {
		where string
		r     *RetentionXML
	}
	retention := []policy{{"DeleteRetentionPolicy", p.DeleteRetentionPolicy}}
	if p.Logging != nil {
		retention = append(retention, policy{"Logging", &p.Logging.RetentionPolicy})
	}
	if p.HourMetrics != nil {
		retention = append(retention, policy{"HourMetrics", &p.HourMetrics.RetentionPolicy})
	}
	if p.MinuteMetrics != nil {
		retention = append(retention, policy{"MinuteMetrics", &p.MinuteMetrics.RetentionPolicy})
	}
	for _, pol := range retention {
		if err := pol.r.validate(pol.where); err != nil {
			return err
		}
	}
	if p.Cors == nil {
		return nil
	}
	if len(p.Cors.Rules) > MaxCORSRules {
		return azerr.ErrInvalidXmlDocument.WithMessage("XML specified is not syntactically valid. At most %d CORS rules are allowed.", MaxCORSRules)
	}
	for _, rule := range p.Cors.Rules {
		if err := rule.validate(); err != nil {
			return err
		}
	}
	return nil
}

// Retention days Azure accepts.
const (
	MinRetentionDays = 1
	MaxRetentionDays = 365
)

// validate checks a retention policy; where names its parent element.
// The reasons are Azure's (go-azblob TestAccountDeleteRetentionPolicy-
// DaysOmitted and DaysTooSmall).
func (r *RetentionXML) validate(where string) error {
	if r == nil {
		return nil
	}
	path := []string{"StorageServiceProperties", where}
	if where != "DeleteRetentionPolicy" {
		path = append(path, "RetentionPolicy")
	}
	switch {
	case r.Days != nil && (*r.Days < MinRetentionDays || *r.Days > MaxRetentionDays):
		return &retentionError{path: path, reason: "Retention days must be greater than 0 and less than or equal to 365 days."}
	case r.Enabled && r.Days == nil:
		return &retentionError{path: path, reason: "Element is missing: Days."}
	}
	return nil
}

// A retentionError refuses a retention policy: the element it is in and
// why. ServeSet turns it into Azure's InvalidXmlDocument with the place
// in the document; Error reads as that code.
type retentionError struct {
	path   []string
	reason string
}

func (e *retentionError) Error() string {
	return "XML specified is not syntactically valid: " + strings.Join(e.path, "/") + ": " + e.reason
}

// Unwrap makes the error InvalidXmlDocument wherever it is classified.
func (e *retentionError) Unwrap() error { return azerr.ErrInvalidXmlDocument }

// CORS rule limits, per Azure's CORS reference.
const (
	maxCORSOrigins        = 64
	maxCORSLiteralHeaders = 64
	maxCORSPrefixHeaders  = 2
	maxCORSHeaderLen      = 256
)

// corsMethods are the methods a CORS rule may allow.
var corsMethods = map[string]bool{"DELETE": true, "GET": true, "HEAD": true, "MERGE": true, "POST": true, "OPTIONS": true, "PUT": true, "PATCH": true}

func (c CorsRuleXML) validate() error {
	for _, m := range splitComma(c.AllowedMethods) {
		if !corsMethods[m] {
			return azerr.InvalidXmlNodeValue("AllowedMethods", c.AllowedMethods)
		}
	}
	if len(splitComma(c.AllowedOrigins)) > maxCORSOrigins {
		return azerr.InvalidXmlNodeValue("AllowedOrigins", c.AllowedOrigins)
	}
	if c.MaxAgeInSeconds < 0 {
		return azerr.InvalidXmlNodeValue("MaxAgeInSeconds", strconv.Itoa(c.MaxAgeInSeconds))
	}
	for _, nl := range [][2]string{{"AllowedHeaders", c.AllowedHeaders}, {"ExposedHeaders", c.ExposedHeaders}} {
		node, list := nl[0], nl[1]
		literal, prefixed := 0, 0
		for _, h := range splitComma(list) {
			if len(h) > maxCORSHeaderLen {
				return azerr.InvalidXmlNodeValue(node, list)
			}
			if strings.HasSuffix(h, "*") && h != "*" {
				prefixed++
			} else {
				literal++
			}
		}
		if literal > maxCORSLiteralHeaders || prefixed > maxCORSPrefixHeaders {
			return azerr.InvalidXmlNodeValue(node, list)
		}
	}
	return nil
}

// normalized returns the rule as Azure's Queue service stores it (the
// other services' recordings have not shown it yet): methods listed without
// spaces, and in each header list the literal names before the prefixed
// ones (x-ms-meta-data*), each group in the order sent. A CORS rule set in
// the azqueue recording TestSetPropertiesSetCors with "GET, PUT" and
// "x-ms-meta-data*,x-ms-meta-target*,x-ms-meta-xyz,x-ms-meta-foo" reads
// back as "GET,PUT" and "x-ms-meta-xyz,x-ms-meta-foo,x-ms-meta-data*,x-ms-meta-target*".
func (c CorsRuleXML) normalized() CorsRuleXML {
	c.AllowedMethods = strings.Join(splitComma(c.AllowedMethods), ",")
	c.AllowedHeaders = literalThenPrefixed(c.AllowedHeaders)
	c.ExposedHeaders = literalThenPrefixed(c.ExposedHeaders)
	return c
}

func literalThenPrefixed(list string) string {
	var literal, prefixed []string
	for _, h := range splitComma(list) {
		if strings.HasSuffix(h, "*") && h != "*" {
			prefixed = append(prefixed, h)
		} else {
			literal = append(literal, h)
		}
	}
	return strings.Join(append(literal, prefixed...), ",")
}

// Merge overlays the elements present in set onto p.
func (p *ServiceProperties) Merge(set ServiceProperties) {
	if set.Logging != nil {
		p.Logging = set.Logging
	}
	if set.HourMetrics != nil {
		p.HourMetrics = set.HourMetrics
	}
	if set.MinuteMetrics != nil {
		p.MinuteMetrics = set.MinuteMetrics
	}
	if set.Cors != nil {
		p.Cors = set.Cors
	}
	if set.DefaultServiceVersion != "" {
		p.DefaultServiceVersion = set.DefaultServiceVersion
	}
	if set.DeleteRetentionPolicy != nil {
		p.DeleteRetentionPolicy = set.DeleteRetentionPolicy
	}
	if set.StaticWebsite != nil {
		p.StaticWebsite = set.StaticWebsite
	}
	if set.ProtocolSettings != nil && set.ProtocolSettings.SMB != nil && set.ProtocolSettings.SMB.Multichannel != nil {
		p.ProtocolSettings = &ProtocolsXML{SMB: &SMBXML{Multichannel: set.ProtocolSettings.SMB.Multichannel}}
	}
}

// CORSRules converts the stored rules for the CORS middleware.
func (p ServiceProperties) CORSRules() []azhttp.CORSRule {
	if p.Cors == nil {
		return nil
	}
	rules := make([]azhttp.CORSRule, 0, len(p.Cors.Rules))
	for _, c := range p.Cors.Rules {
		rules = append(rules, azhttp.CORSRule{
			AllowedOrigins:  splitComma(c.AllowedOrigins),
			AllowedMethods:  splitComma(c.AllowedMethods),
			AllowedHeaders:  splitComma(c.AllowedHeaders),
			ExposedHeaders:  splitComma(c.ExposedHeaders),
			MaxAgeInSeconds: c.MaxAgeInSeconds,
		})
	}
	return rules
}

func splitComma(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
