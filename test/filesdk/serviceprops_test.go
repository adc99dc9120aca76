package filesdk_test

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
)

// TestServicePropertiesProtocolSettings: Get File Service Properties
// answers ProtocolSettings, SMB Multichannel off, before any Set and after
// a Set that names none, as Azure does (Java FileServiceApiTests
// .setAndGetProperties recording, x-ms-version 2023-08-03: HourMetrics,
// MinuteMetrics, Cors, then ProtocolSettings). Clients that read it
// unconditionally, such as the az CLI's `az storage cors list`, fail
// without it. A Set that names it keeps it.
func TestServicePropertiesProtocolSettings(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	multichannel := func(what string) *bool {
		t.Helper()
		p, err := f.svc.GetProperties(t.Context(), nil)
		if err != nil {
			t.Fatalf("%s: GetProperties: %v", what, err)
		}
		if p.Protocol == nil || p.Protocol.Smb == nil || p.Protocol.Smb.Multichannel == nil || p.Protocol.Smb.Multichannel.Enabled == nil {
			t.Fatalf("%s: no ProtocolSettings/SMB/Multichannel/Enabled in %+v", what, p.Protocol)
		}
		return p.Protocol.Smb.Multichannel.Enabled
	}
	if *multichannel("a new account") {
		t.Error("a new account: SMB Multichannel on, want off")
	}
	hour := &service.Metrics{Enabled: to.Ptr(true), IncludeAPIs: to.Ptr(false), RetentionPolicy: &service.RetentionPolicy{Enabled: to.Ptr(true), Days: to.Ptr(int32(3))}}
	if _, err := f.svc.SetProperties(t.Context(), &service.SetPropertiesOptions{HourMetrics: hour}); err != nil {
		t.Fatal(err)
	}
	if *multichannel("after a Set naming no ProtocolSettings") {
		t.Error("SMB Multichannel on after a Set that did not name it")
	}
	on := &service.ProtocolSettings{Smb: &service.SMBSettings{Multichannel: &service.SMBMultichannel{Enabled: to.Ptr(true)}}}
	if _, err := f.svc.SetProperties(t.Context(), &service.SetPropertiesOptions{Protocol: on}); err != nil {
		t.Fatal(err)
	}
	if !*multichannel("after a Set turning it on") {
		t.Error("SMB Multichannel off after a Set turning it on")
	}
	if _, err := f.svc.SetProperties(t.Context(), &service.SetPropertiesOptions{HourMetrics: hour}); err != nil {
		t.Fatal(err)
	}
	if !*multichannel("after a later Set naming no ProtocolSettings") {
		t.Error("a Set naming no ProtocolSettings turned SMB Multichannel off")
	}
}
