// Package azbody reads and writes Azure Storage's structured message
// bodies (x-ms-structured-body: XSM/1.0; properties=crc64), which carry a
// CRC64 per segment and for the whole message, and computes the Azure
// CRC64 that x-ms-content-crc64 and the structured body use.
package azbody
