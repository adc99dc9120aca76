package cosmos

import "net/http"

// getAccount answers GET /: the database account. Its writable and
// readable locations echo the host the client used, so SDKs that route
// by location keep talking to this server.
func (h *handler) getAccount(q *request) error {
	scheme := "http"
	if q.r.TLS != nil {
		scheme = "https"
	}
	endpoint := scheme + "://" + q.r.Host + "/"
	loc := []map[string]any{{"name": "South Central US", "databaseAccountEndpoint": endpoint}}
	return h.writeValue(q, http.StatusOK, map[string]any{
		"_self":                          "",
		"id":                             "localhost",
		"_rid":                           "localhost",
		"media":                          "//media/",
		"addresses":                      "//addresses/",
		"_dbs":                           "//dbs/",
		"writableLocations":              loc,
		"readableLocations":              loc,
		"enableMultipleWriteLocations":   false,
		"continuousBackupEnabled":        false,
		"enableNRegionSynchronousCommit": false,
		"userReplicationPolicy":          map[string]any{"asyncReplication": false, "minReplicaSetSize": 1, "maxReplicasetSize": 4},
		"userConsistencyPolicy":          map[string]any{"defaultConsistencyLevel": "Session"},
		"systemReplicationPolicy":        map[string]any{"minReplicaSetSize": 1, "maxReplicasetSize": 4},
		"readPolicy":                     map[string]any{"primaryReadCoefficient": 1, "secondaryReadCoefficient": 1},
		"queryEngineConfiguration":       `{"maxSqlQueryInputLength":262144,"maxJoinsPerSqlQuery":5,"maxLogicalAndPerSqlQuery":500,"maxLogicalOrPerSqlQuery":500,"maxUdfRefPerSqlQuery":10,"maxInExpressionItemsCount":16000,"queryMaxInMemorySortDocumentCount":500,"maxQueryRequestTimeoutFraction":0.9,"sqlAllowNonFiniteNumbers":false,"sqlAllowAggregateFunctions":true,"sqlAllowSubQuery":true,"sqlAllowScalarSubQuery":true,"allowNewKeywords":true,"sqlAllowLike":true,"sqlAllowGroupByClause":true,"maxSpatialQueryCells":12,"spatialMaxGeometryPointCount":256,"sqlDisableOptimizationFlags":0,"sqlAllowTop":true,"enableSpatialIndexing":true}`,
	})
}
