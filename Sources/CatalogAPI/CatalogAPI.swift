// The types of the IAP Catalog API, generated at build time from `openapi.yaml` (the API's source of truth) by
// swift-openapi-generator: `Components` (schemas, responses, parameters) and `Operations` (each operation's
// input and output). The server's routing (CatalogAPIServer) and the CLI's client (CatalogClient) are
// generated from the same document in their own targets, importing these types, so the two cannot drift
// apart. Nothing hand-written lives here: what both ends agree on beyond the document (its encoding, how a
// decoding error is read, the document itself) is CatalogAPIConventions, built with the strict settings.
import OpenAPIRuntime
