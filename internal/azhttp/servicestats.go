package azhttp

import (
	"encoding/xml"
	"net/http"
	"time"
)

// serviceStatsXML is Get Service Stats' document, the same for Blob,
// Queue and Table.
type serviceStatsXML struct {
	XMLName        xml.Name `xml:"StorageServiceStats"`
	GeoReplication struct {
		Status       string `xml:"Status"`
		LastSyncTime string `xml:"LastSyncTime"`
	} `xml:"GeoReplication"`
}

// WriteServiceStats answers Get Service Stats with the geo-replication
// status and last sync time.
func WriteServiceStats(w http.ResponseWriter, status string, lastSync time.Time) error {
	var doc serviceStatsXML
	doc.GeoReplication.Status = status
	doc.GeoReplication.LastSyncTime = HTTPTime(lastSync)
	return WriteXML(w, http.StatusOK, doc)
}
